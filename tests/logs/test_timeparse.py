"""Times and windows as --since/--until and the log records write them."""
from __future__ import annotations

from kueue_doctor.logs.timeparse import parse_bound, parse_ts

from .excerpts import ts


def test_bounds_accept_times_and_durations():
    assert parse_bound("2026-08-20T10:00:00Z", option="--since") == parse_ts(ts(0))
    assert parse_bound("30m", option="--since", now=10_000.0) == 8_200.0
    assert parse_ts("2026-08-20T12:00:00.5+02:00") == parse_ts(ts(0.5))
