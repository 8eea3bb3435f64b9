"""Times and windows as --since/--until and the log records write them."""
from __future__ import annotations

from kueue_doctor.logs.timeparse import parse_bound, parse_ts

from .excerpts import ts


def test_bounds_accept_times_and_durations():
    assert parse_bound("2026-08-20T10:00:00Z", option="--since") == parse_ts(ts(0))
    assert parse_bound("30m", option="--since", now=10_000.0) == 8_200.0
    assert parse_ts("2026-08-20T12:00:00.5+02:00") == parse_ts(ts(0.5))


def test_whole_seconds_read_as_strptime_reads_them():
    """The zap form is read without strptime: every head gives strptime's value or its error."""
    import random
    from datetime import UTC, datetime

    from kueue_doctor.logs.timeparse import _second

    def reference(head):
        try:
            return datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp()
        except ValueError:
            return "error"

    def ours(head):
        try:
            return _second(head)
        except ValueError:
            return "error"

    heads = ["2026-08-20T10:00:00", "2024-02-29T23:59:59", "2025-02-29T00:00:00", "2026-13-01T00:00:00",
             "2026-00-10T00:00:00", "2026-08-20T24:00:00", "2026-08-20T10:60:00", "2026-08-20T10:00:60",
             "2026-08-20T10:00:61", "0001-01-01T00:00:00", "9999-12-31T23:59:59", "2026-8-20T10:00:001",
             "2026-08-20t10:00:00", "2026-08-20 10:00:00", "٢٠٢٦-08-20T10:00:00", "2026-08-2T10:00:00Z",
             " 2026-08-20T10:00:0", "2026-08-20T1:00:000"]
    rng = random.Random(5)
    alphabet = "0123456789-T: "
    for _ in range(3000):
        base = list(rng.choice(heads[:2]))
        for _ in range(rng.randrange(1, 3)):
            base[rng.randrange(19)] = rng.choice(alphabet)
        heads.append("".join(base))
    for head in heads:
        assert ours(head) == reference(head), head
    assert sum(ours(h) != "error" for h in heads) > 300   # both kinds are exercised
