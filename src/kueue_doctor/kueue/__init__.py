"""Facts about Kueue itself that several layers read: releases, feature-gate defaults, known
bugs with their fix releases, and the wire vocabulary (log messages and keys, condition
reasons, eviction messages, the snapshot folder layout) shared by each writer and its reader."""
