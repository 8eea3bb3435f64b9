"""duration: the one duration parser, for scenarios and every command-line option."""
from __future__ import annotations

import pytest

from kueue_doctor.duration import duration, parse_seconds
from kueue_doctor.errors import InputError
from kueue_doctor.logs.timeparse import parse_bound


@pytest.mark.parametrize(("text", "seconds"), [
    ("90", 90.0), ("90s", 90.0), ("15m", 900.0), ("2h", 7200.0), ("1.5d", 129600.0),
    ("500ms", 0.5), (" 2h ", 7200.0), ("5 m", 300.0),
])
def test_forms(text, seconds):
    assert duration(text, "f") == seconds
    assert parse_seconds(text) == seconds


def test_numbers_are_seconds_already():
    assert duration(90, "f") == 90.0
    assert duration(2.5, "f") == 2.5


@pytest.mark.parametrize("value", ["5 minutes", "soon", "-1s", "", "1e3s", True])
def test_not_a_duration_names_the_field(value):
    with pytest.raises(InputError) as e:
        duration(value, "--until")
    assert str(e.value) == f"--until: not a duration: {value!r} (expected e.g. 30s, 15m, 2h, 1h30m)"


def test_unit_required_leaves_bare_numbers_to_other_readings():
    assert parse_seconds("90", unit_required=True) is None
    assert parse_seconds("90s", unit_required=True) == 90.0


def test_log_bounds_use_the_same_parser():
    assert parse_bound("30m", option="--since", now=10_000.0) == 10_000.0 - parse_seconds("30m")
    assert parse_bound("500ms", option="--since", now=10.0) == 9.5
    with pytest.raises(InputError):
        parse_bound("90", option="--since", now=10.0)  # neither a time nor a duration with a unit


@pytest.mark.parametrize(("text", "seconds"), [
    ("1h30m", 5400.0), ("2m30.5s", 150.5), ("1h0m0s", 3600.0), ("1d2h", 93600.0), ("1m500ms", 60.5),
])
def test_go_compound_forms(text, seconds):
    assert duration(text, "f") == seconds


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (0.4, "0.4s"), (35, "35s"), (60, "1m"), (2892, "48m12s"), (6900, "1h55m"),
    (222600, "61h50m"), (7200, "2h"), (-90, "-1m30s"),
])
def test_go_prints_two_largest_units(seconds, text):
    from kueue_doctor.duration import go
    assert go(seconds) == text
    assert seconds < 0 or abs(duration(text, "f") - seconds) < 60  # reads back, rounded down
