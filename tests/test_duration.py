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
    assert str(e.value) == f"--until: not a duration: {value!r} (expected e.g. 30s, 15m, 2h)"


def test_unit_required_leaves_bare_numbers_to_other_readings():
    assert parse_seconds("90", unit_required=True) is None
    assert parse_seconds("90s", unit_required=True) == 90.0


def test_log_bounds_use_the_same_parser():
    assert parse_bound("30m", option="--since", now=10_000.0) == 10_000.0 - parse_seconds("30m")
    assert parse_bound("500ms", option="--since", now=10.0) == 9.5
    with pytest.raises(InputError):
        parse_bound("90", option="--since", now=10.0)  # neither a time nor a duration with a unit
