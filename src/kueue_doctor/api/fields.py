"""Typed access to a decoded YAML/JSON object that names the field when it is wrong."""
from __future__ import annotations

import builtins
from datetime import UTC, datetime
from typing import Any, Literal, overload

from ..errors import InputError
from .quantity import Quantity, QuantityError

_MISSING = object()


def _type_name(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


class Fields:
    """A mapping plus the dotted path that leads to it.

    The accessors are named after the types they return (``str``, ``int``, ``bool``, ``list``),
    so inside this class the annotations spell the types ``builtins.str`` and so on."""

    __slots__ = ("data", "path")

    def __init__(self, data: Any, path: builtins.str = ""):
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InputError(f"must be an object, got {_type_name(data)}", field=path or "(document)")
        self.data = data
        self.path = path

    def where(self, key: builtins.str) -> builtins.str:
        return f"{self.path}.{key}" if self.path else key

    def _get(self, key: builtins.str, required: builtins.bool) -> Any:
        v = self.data.get(key, _MISSING)
        if v is _MISSING or v is None:
            if required:
                raise InputError("required field is missing", field=self.where(key))
            return _MISSING
        return v

    def has(self, key: builtins.str) -> builtins.bool:
        return self.data.get(key) is not None

    def str(self, key: builtins.str, default: builtins.str = "", required: builtins.bool = False,
            choices: tuple[builtins.str, ...] | None = None) -> builtins.str:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        if not isinstance(v, str):
            raise InputError(f"must be a string, got {_type_name(v)}", field=self.where(key))
        if choices is not None and v not in choices:
            raise InputError(f"unsupported value {v!r}: expected one of {', '.join(choices)}",
                             field=self.where(key))
        return v

    @overload
    def int(self, key: builtins.str, default: builtins.int, required: builtins.bool = ...,
            minimum: builtins.int | None = ...) -> builtins.int: ...
    @overload
    def int(self, key: builtins.str, default: None = ..., *, required: Literal[True],
            minimum: builtins.int | None = ...) -> builtins.int: ...
    @overload
    def int(self, key: builtins.str, default: None = ..., required: builtins.bool = ...,
            minimum: builtins.int | None = ...) -> builtins.int | None: ...

    def int(self, key: builtins.str, default: builtins.int | None = None, required: builtins.bool = False,
            minimum: builtins.int | None = None) -> builtins.int | None:
        v = self._get(key, required)
        if v is _MISSING:
            return default
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, str) and v.strip().lstrip("+-").isdigit():
                v = int(v)
            else:
                raise InputError(f"must be an integer, got {v!r}", field=self.where(key))
        if minimum is not None and v < minimum:
            raise InputError(f"must be >= {minimum}, got {v}", field=self.where(key))
        return v

    def bool(self, key: builtins.str, default: builtins.bool = False) -> builtins.bool:
        v = self._get(key, False)
        if v is _MISSING:
            return default
        if not isinstance(v, bool):
            raise InputError(f"must be true or false, got {v!r}", field=self.where(key))
        return v

    @overload
    def quantity(self, key: builtins.str, required: Literal[True]) -> Quantity: ...
    @overload
    def quantity(self, key: builtins.str, required: builtins.bool = ...) -> Quantity | None: ...

    def quantity(self, key: builtins.str, required: builtins.bool = False) -> Quantity | None:
        v = self._get(key, required)
        if v is _MISSING:
            return None
        return to_quantity(v, self.where(key))

    def time(self, key: builtins.str) -> datetime | None:
        v = self._get(key, False)
        if v is _MISSING:
            return None
        return to_time(v, self.where(key))

    def obj(self, key: builtins.str, required: builtins.bool = False) -> Fields:
        v = self._get(key, required)
        return Fields({} if v is _MISSING else v, self.where(key))

    def list(self, key: builtins.str, required: builtins.bool = False) -> builtins.list[Any]:
        v = self._get(key, required)
        if v is _MISSING:
            return []
        if not isinstance(v, list):
            raise InputError(f"must be a list, got {_type_name(v)}", field=self.where(key))
        return v

    def objs(self, key: builtins.str, required: builtins.bool = False) -> builtins.list[Fields]:
        return [Fields(item, f"{self.where(key)}[{i}]") for i, item in enumerate(self.list(key, required))]

    def strs(self, key: builtins.str) -> builtins.list[builtins.str]:
        out = []
        for i, item in enumerate(self.list(key)):
            if not isinstance(item, str):
                raise InputError(f"must be a string, got {_type_name(item)}", field=f"{self.where(key)}[{i}]")
            out.append(item)
        return out

    def str_map(self, key: builtins.str) -> dict[builtins.str, builtins.str]:
        raw = self.obj(key)
        out = {}
        for k, v in raw.data.items():
            if v is None:
                v = ""
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                raise InputError(f"must be a string, got {_type_name(v)}", field=raw.where(str(k)))
            out[str(k)] = v if isinstance(v, str) else str(v)
        return out

    def resources(self, key: builtins.str) -> dict[builtins.str, Quantity]:
        raw = self.obj(key)
        return {str(k): to_quantity(v, raw.where(str(k))) for k, v in raw.data.items() if v is not None}


def to_quantity(v: Any, where: str) -> Quantity:
    try:
        return Quantity.parse(v)
    except QuantityError as e:
        raise InputError(f"invalid quantity: {e}", field=where) from None


def to_time(v: Any, where: str) -> datetime:
    if isinstance(v, datetime):  # YAML already decoded an unquoted timestamp
        return v if v.tzinfo else v.replace(tzinfo=UTC)
    if not isinstance(v, str):
        raise InputError(f"must be an RFC3339 time, got {v!r}", field=where)
    text = v.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"must be an RFC3339 time, got {v!r}", field=where) from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)
