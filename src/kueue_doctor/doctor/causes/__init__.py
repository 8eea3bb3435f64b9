"""Cause candidates, each from the facts that support it, and their ranking."""
