"""Kubernetes resource quantities, exactly.

A quantity is kept as an exact rational number (never a float) together with the
format it was written in, so it can be printed back the way Kubernetes prints it.
Kueue accounts CPU in millicores and every other resource in whole units, rounding
up (``Quantity.MilliValue`` / ``Quantity.Value`` in apimachinery); ``amount`` does
the same.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_QUANTITY_RE = re.compile(
    rf"^(?P<sign>[+-]?)(?P<num>{_NUMBER})"
    rf"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?{_NUMBER})?$"
)

# Kueue's Amount saturates at int64's maximum ("Unlimited").
INT64_MAX = 2**63 - 1


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


class Quantity:
    __slots__ = ("_milli", "_units", "format", "value")

    def __init__(self, value: Fraction | int, fmt: str = DECIMAL_SI):
        self.value = Fraction(value)
        self.format = fmt
        self._milli: int | None = None
        self._units: int | None = None

    @classmethod
    def parse(cls, text: str | int | float | Quantity) -> Quantity:
        if isinstance(text, Quantity):
            return text
        if isinstance(text, str):
            return _parse_cached(text)
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str | int | float) -> Quantity:
        if isinstance(text, bool):
            raise QuantityError(f"{text!r} is not a quantity")
        if isinstance(text, int):
            return cls(text)
        if isinstance(text, float):
            # YAML turns an unquoted 1.5 into a float; its shortest repr is what the user wrote.
            text = repr(text)
        if not isinstance(text, str):
            raise QuantityError(f"{text!r} is not a quantity")
        m = _QUANTITY_RE.match(text.strip())
        if not m or not text.strip():
            raise QuantityError(f"{text!r} is not a quantity (expected e.g. 500m, 2, 1.5, 3Gi, 2e3)")
        num = Fraction(m.group("num") if not m.group("num").endswith(".") else m.group("num")[:-1])
        if m.group("sign") == "-":
            num = -num
        suffix = m.group("suffix") or ""
        if suffix in _BINARY:
            return cls(num * (1024 ** _BINARY[suffix]), BINARY_SI)
        if suffix in _DECIMAL:
            return cls(num * (Fraction(10) ** _DECIMAL[suffix]), DECIMAL_SI)
        exp_text = suffix[1:]
        if "." in exp_text:
            raise QuantityError(f"{text!r} is not a quantity: the exponent must be an integer")
        exp = int(exp_text)
        if abs(exp) > 400:
            raise QuantityError(f"{text!r} is not a quantity: exponent out of range")
        return cls(num * (Fraction(10) ** exp), DECIMAL_EXPONENT)

    # -- canonical integer amounts -------------------------------------------------
    # Both are asked for millions of times of the same few shared quantities; computed once.
    def milli_value(self) -> int:
        if self._milli is None:
            self._milli = _ceil(self.value * 1000)
        return self._milli

    def int_value(self) -> int:
        if self._units is None:
            self._units = _ceil(self.value)
        return self._units

    def amount(self, resource: str) -> int:
        """Kueue's integer amount for ``resource``: millicores for cpu, units otherwise."""
        v = self.milli_value() if resource == "cpu" else self.int_value()
        return min(v, INT64_MAX)

    # -- comparison ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self.value == other.value
        if isinstance(other, (int, Fraction)):
            return self.value == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.value + other.value, self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        return Quantity(self.value - other.value, self.format)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __str__(self) -> str:
        return format_quantity(self.value, self.format)


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Quantity:
    # Clusters repeat the same few quantity strings thousands of times; quantities are never
    # mutated after parsing, so one object can serve them all.
    return Quantity._parse(text)


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def format_quantity(value: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Print like apimachinery's ``Quantity.String()`` (canonical form)."""
    value = Fraction(value)
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mag = -value if value < 0 else value
    if fmt == BINARY_SI and mag >= 1024 and mag.denominator == 1:
        n, exp = mag.numerator, 0
        while n % 1024 == 0 and exp < 6:
            n //= 1024
            exp += 1
        suffix = {0: ""} | {v: k for k, v in _BINARY.items()}
        return f"{sign}{n}{suffix[exp]}"
    # Decimal forms: mantissa * 10**exp, exp a multiple of 3, smallest exact mantissa,
    # anything finer than a nano rounded up (as Kubernetes does).
    scaled = mag * 10**9
    if scaled.denominator != 1:
        scaled = Fraction(_ceil(scaled))
    n, exp = scaled.numerator, -9
    while n % 1000 == 0 and n != 0:
        n //= 1000
        exp += 3
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{n}" + (f"e{exp}" if exp else "")
    if exp > 18:
        n *= 10 ** (exp - 18)
        exp = 18
    return f"{sign}{n}{_DECIMAL_SUFFIX[exp]}"


def amount_to_quantity(resource: str, amount: int) -> Quantity:
    """The quantity Kueue prints for an integer amount (``resources.ResourceQuantity``)."""
    if resource == "cpu":
        return Quantity(Fraction(amount, 1000), DECIMAL_SI)
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return Quantity(amount, BINARY_SI)
    return Quantity(amount, DECIMAL_SI)


def format_amount(resource: str, amount: int) -> str:
    return str(amount_to_quantity(resource, amount))


_HUMAN_BINARY = (("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def is_bytes(resource: str) -> bool:
    return resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")


def human_unit(resource: str, amounts: Iterable[int]) -> str:
    """The one unit a column of ``resource`` amounts is printed in: the largest unit in which
    its smallest non-zero amount still reads as 1 or more, so that 5760Gi, 1440Gi and 2880Gi
    read 5.6Ti, 1.4Ti, 2.8Ti, and 1Ti beside 128Gi reads 1024Gi, 128Gi (never 0.1Ti)."""
    nonzero = [abs(a) for a in amounts if a]
    if not nonzero:
        return ""
    smallest = min(nonzero)
    if is_bytes(resource):
        return next((u for u, size in _HUMAN_BINARY if smallest >= size), "")
    if resource == "cpu":
        return "" if smallest >= 1000 else "m"
    return ""


def human_amount(resource: str, amount: int, unit: str | None = None) -> str:
    """A Kueue amount (millicores for cpu, bytes for memory, units otherwise) as people read
    it: ``1.4Ti``, ``128``, ``500m``, ``1.5``. Lossy by design (one decimal); JSON keeps the
    exact quantity."""
    unit = human_unit(resource, (amount,)) if unit is None else unit
    if amount == 0:
        return "0"
    if is_bytes(resource):
        size = dict(_HUMAN_BINARY).get(unit, 1)
        return _one_decimal(amount / size) + unit
    if resource == "cpu":
        return f"{amount}m" if unit == "m" else _one_decimal(amount / 1000)
    return str(amount)


def _one_decimal(x: float) -> str:
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text
