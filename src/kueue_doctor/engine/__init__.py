"""Kueue's admission semantics as a pure model: no I/O, no clock of its own.

Specification: shared/reference/kueue-semantics.md (each module names the upstream
functions it follows); ground truth: tests/conformance (upstream's own unit tests).
"""
