"""Quantities parse exactly and print the way apimachinery's Quantity.String() does."""
from __future__ import annotations

from fractions import Fraction

import pytest

from kueue_doctor.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    Quantity,
    QuantityError,
    amount_to_quantity,
    format_quantity,
)


@pytest.mark.parametrize(("text", "value", "fmt", "canonical"), [
    ("500m", Fraction(1, 2), DECIMAL_SI, "500m"),
    ("3Gi", 3 * 2**30, BINARY_SI, "3Gi"),
    ("1.5", Fraction(3, 2), DECIMAL_SI, "1500m"),
    ("2e3", 2000, DECIMAL_EXPONENT, "2e3"),
    ("1E", 10**18, DECIMAL_SI, "1E"),  # E alone is exa, not an exponent
    ("1E3", 1000, DECIMAL_EXPONENT, "1e3"),
    (".5", Fraction(1, 2), DECIMAL_SI, "500m"),
    ("5.", 5, DECIMAL_SI, "5"),
    ("+1", 1, DECIMAL_SI, "1"),
    ("-1", -1, DECIMAL_SI, "-1"),
    ("1e-3", Fraction(1, 1000), DECIMAL_EXPONENT, "1e-3"),
    ("2000", 2000, DECIMAL_SI, "2k"),
    ("1500", 1500, DECIMAL_SI, "1500"),
    ("1024", 1024, DECIMAL_SI, "1024"),
    ("1.5Gi", 3 * 2**29, BINARY_SI, "1536Mi"),
    ("0.5Gi", 2**29, BINARY_SI, "512Mi"),
    ("1Ki", 1024, BINARY_SI, "1Ki"),
    ("12e6", 12 * 10**6, DECIMAL_EXPONENT, "12e6"),
    ("1.5e-3", Fraction(3, 2000), DECIMAL_EXPONENT, "1500e-6"),
    ("1n", Fraction(1, 10**9), DECIMAL_SI, "1n"),
    ("0", 0, DECIMAL_SI, "0"),
    ("1000E", 10**21, DECIMAL_SI, "1000E"),  # no suffix above exa
])
def test_parse_and_print(text, value, fmt, canonical):
    q = Quantity.parse(text)
    assert q.value == value
    assert q.format == fmt
    assert str(q) == canonical


def test_finer_than_nano_rounds_up_when_printed():
    assert str(Quantity.parse("1.0000000001")) == "1000000001n"
    assert format_quantity(Fraction(1, 10**12)) == "1n"


def test_binary_below_1024_or_fractional_prints_decimal():
    assert format_quantity(Fraction(512), BINARY_SI) == "512"
    assert format_quantity(Fraction(3, 2), BINARY_SI) == "1500m"
    assert format_quantity(Fraction(3 * 2**30), BINARY_SI) == "3Gi"
    assert format_quantity(Fraction(-2048), BINARY_SI) == "-2Ki"


def test_yaml_numbers():
    # YAML hands unquoted numbers over as int/float; they mean what was written.
    assert Quantity.parse(2000) == Quantity.parse("2k")
    assert str(Quantity.parse(1.5)) == "1500m"
    assert str(Quantity.parse(0.1)) == "100m"
    assert str(Quantity.parse(1e20)) == "100e18"


@pytest.mark.parametrize(("text", "milli", "units"), [
    ("1", 1000, 1), ("500m", 500, 1), ("0.1m", 1, 1), ("1.0000000001", 1001, 2),
    ("1.5", 1500, 2), ("3Gi", 3 * 2**30 * 1000, 3 * 2**30), ("1n", 1, 1),
])
def test_milli_and_int_values_round_up(text, milli, units):
    q = Quantity.parse(text)
    assert q.milli_value() == milli
    assert q.int_value() == units


def test_amount_is_millicores_for_cpu_and_saturates():
    assert Quantity.parse("1.5").amount("cpu") == 1500
    assert Quantity.parse("1.5").amount("nvidia.com/gpu") == 2
    assert Quantity.parse("100E").amount("memory") == 2**63 - 1
    assert str(amount_to_quantity("cpu", 1500)) == "1500m"
    assert str(amount_to_quantity("memory", 3 * 2**30)) == "3Gi"


@pytest.mark.parametrize("bad", ["12 GPUs", "1.2.3", "", "5 Gi", "--3", "1e", "e3", ".", "1e1.5",
                                 "Gi", "1gi", "1KiB", "0x10", "1e999"])
def test_rejects_non_quantities(bad):
    with pytest.raises(QuantityError):
        Quantity.parse(bad)


@pytest.mark.parametrize("bad", [True, None, [], {}])
def test_rejects_non_strings(bad):
    with pytest.raises(QuantityError):
        Quantity.parse(bad)


def test_equality_is_by_value_not_format():
    assert Quantity.parse("1Ki") == Quantity.parse("1024")
    assert hash(Quantity.parse("1k")) == hash(Quantity.parse("1e3"))
    assert Quantity.parse("500m") < Quantity.parse("1")


@pytest.mark.parametrize(("resource", "amount", "unit", "text"), [
    ("memory", 1440 << 30, None, "1.4Ti"),
    ("memory", 1474560 << 20, None, "1.4Ti"),      # the same amount written in Mi reads the same
    ("memory", 512 << 20, None, "512Mi"),
    ("memory", 512 << 20, "Gi", "0.5Gi"),          # in a column's unit
    ("memory", 100, None, "100"),
    ("memory", 0, "Ti", "0"),
    ("cpu", 128000, None, "128"),
    ("cpu", 1500, None, "1.5"),
    ("cpu", 500, None, "500m"),
    ("cpu", 0, None, "0"),
    ("nvidia.com/gpu", 24, None, "24"),
])
def test_human_amounts(resource, amount, unit, text):
    from kueue_doctor.api.quantity import human_amount
    assert human_amount(resource, amount, unit) == text


def test_a_column_takes_the_unit_of_its_largest_value():
    from kueue_doctor.api.quantity import human_amount, human_unit
    values = [5760 << 30, 1440 << 30, 2880 << 30]
    unit = human_unit("memory", values)
    assert [human_amount("memory", v, unit) for v in values] == ["5.6Ti", "1.4Ti", "2.8Ti"]
    small = [1 << 40, 0, 128 << 30]       # the smallest non-zero amount decides: never "0.1Ti"
    unit = human_unit("memory", small)
    assert [human_amount("memory", v, unit) for v in small] == ["1024Gi", "0", "128Gi"]
    assert human_unit("cpu", [576000, 500]) == "m" and human_unit("cpu", [576000, 0]) == ""
