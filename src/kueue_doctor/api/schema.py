"""Check a raw Kueue object against Kueue's own CRD schema, reporting like the API server.

The schemas are the reduced copies under ``kueue_doctor/data/crds`` (see
``scripts/reduce_crds.py``). Each (kind, version) is compiled once, on first use, into a
``jsonschema`` validator whose keywords are our own small functions, so that every
problem reads the way ``kubectl apply`` would print it
(``spec.queueingStrategy: Unsupported value: "Fastest": supported values: ...``) and only
the first problem is computed.

Evaluated: ``type``, ``properties``, ``additionalProperties``, ``items``, ``required``,
``enum``, ``pattern``, ``minItems``/``maxItems``, ``minLength``/``maxLength``,
``maxProperties``, ``minimum``/``maximum``, int-or-string (quantities checked against the
quantity pattern) and ``format: date-time``.

Not evaluated, deliberately:

* CEL rules (``x-kubernetes-validations``): most compare ``self`` with ``oldSelf`` (updates,
  meaningless for a file), and the conformance scenarios copied from Kueue's unit tests
  hold objects the webhook/CEL would reject (a borrowingLimit without a cohort, ...). The
  reduction script drops them.
* ``x-kubernetes-list-type``/``-list-map-keys`` uniqueness and ``-map-type``: dropped too.
* ``format: int32``/``int64`` ranges: Python integers are exact and the API server's
  decoder, not the schema, is what rejects overflow.
* ``default``: not applied, but a property that has a default is not ``required`` (the API
  server defaults before it validates, so omitting it is fine).
* ``null`` values: a property set to null is treated as absent, like the rest of the
  loader does (``status:`` with nothing under it is common in hand-written YAML).
* a few rules that objects in Kueue's own test cases break (DNS-1123 patterns of names,
  empty resource lists, parts of a status): see ``_RELAXED_*`` below.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# jsonschema is imported only when an object has failed the fast check (below): importing
# it costs more than a CLI run on valid input otherwise spends on validation.


def _error(message: str, path: tuple = ()) -> ValidationError:
    from jsonschema.exceptions import ValidationError
    return ValidationError(message, path=path)

KUEUE_GROUP = "kueue.x-k8s.io"

# The pattern controller-gen emits for resource.Quantity fields, matched literally so
# those fields get a "must be a quantity" message instead of a 150-character regex.
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
_QUANTITY_RE = re.compile(QUANTITY_PATTERN)
_DATE_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")

# Rules of the CRDs the loader does not enforce, because objects in Kueue's own test
# cases (copied into tests/conformance) break them and must still load. Paths are dotted
# schema paths with [] for list items; kind "*" is any kind.
_RELAXED_KEYWORDS = {
    # A flavor listing no resources, a resource group covering none: the scheduler tests
    # build such queues and the object model copes with them.
    ("ClusterQueue", "spec.resourceGroups[].flavors[].resources", "minItems"),
    ("Cohort", "spec.resourceGroups[].flavors[].resources", "minItems"),
    ("ClusterQueue", "spec.resourceGroups[].coveredResources", "minItems"),
    ("Cohort", "spec.resourceGroups[].coveredResources", "minItems"),
}
# (kind, path of the object, property) no longer required.
_RELAXED_REQUIRED = {
    # Status is Kueue's to write; test fixtures give a condition's type, status and
    # reason, and an admission check's name and state, and leave out the rest.
    ("Workload", "status.conditions[]", "message"),
    ("Workload", "status.admissionChecks[]", "message"),
    ("Workload", "status.admissionChecks[]", "lastTransitionTime"),
    ("*", "status.conditions[]", "message"),
    # Container names matter to the kubelet, not to quota; the tests omit them.
    ("Workload", "spec.podSets[].template.spec.containers[]", "name"),
    ("Workload", "spec.podSets[].template.spec.initContainers[]", "name"),
}
# The DNS-1123 name patterns on references to other objects (cohortName, clusterQueue,
# flavor names ...): the tests name objects "CQ1", "with_shared_cq", "ROOT". metadata.name
# itself is not in the CRD schemas either, so names are simply not pattern-checked.
_RELAXED_PATTERNS = {
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
}


# -- messages ---------------------------------------------------------------------------

def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, (str, datetime, date)):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null" if v is None else type(v).__name__


def show(v: Any) -> str:
    """A value the way the API server quotes it in ``Invalid value: ...``."""
    if isinstance(v, (datetime, date)):
        v = v.isoformat()
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        return text if len(text) <= 80 else text[:76] + '..."'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(_type_name(v))


# -- keywords ---------------------------------------------------------------------------
# Each leaf keyword is a pair: ``ok(limit, instance)`` and the message when it is not.
# Both the jsonschema validator and the fast closures (below) use the same ``ok``, so
# they cannot disagree on what is valid. Each ``ok`` accepts values of another type:
# ``type`` reports that, once, instead of every keyword complaining about one value.

_DATE_TIME_HINT = "must be a date-time (RFC 3339, e.g. 2024-01-01T00:00:00Z)"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _ok_enum(choices, v) -> bool:
    return any(v == c and type(v) is type(c) for c in choices)


def _ok_pattern(pattern, v) -> bool:
    return not isinstance(v, str) or _compiled(pattern).search(v) is not None


_GO_FLAGS = re.compile(r"^\^\((\?[a-z]+)\)")


@cache
def _compiled(pattern: str) -> re.Pattern:
    # RE2 (the API server's) takes flags anywhere, Python only at the very start: the
    # AdmissionCheck CRD's "^(?i)[a-z]..." is "(?i)^[a-z]..." here
    return re.compile(_GO_FLAGS.sub(lambda m: f"({m.group(1)})^", pattern))


def _ok_quantity(_, v) -> bool:
    # A float is what YAML makes of an unquoted 1.5; the rest of the loader reads it as
    # the quantity "1.5", so it is accepted here too.
    if isinstance(v, str):
        return _QUANTITY_RE.match(v) is not None
    return v is None or (_is_number(v) and math.isfinite(v))


def _ok_int_or_string(_, v) -> bool:
    return v is None or (isinstance(v, (int, str)) and not isinstance(v, bool))


def _ok_date_time(_, v) -> bool:
    if isinstance(v, datetime):  # YAML decoded an unquoted timestamp: it is valid
        return True
    if isinstance(v, date):  # a bare date is not an RFC 3339 date-time
        return False
    if not isinstance(v, str):
        return True
    if not _DATE_TIME_RE.match(v):
        return False
    try:  # the pattern lets through month 13, hour 25...
        datetime.fromisoformat(v.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


LEAVES: dict[str, tuple[Callable[[Any, Any], bool], Callable[[Any, Any], str]]] = {
    "enum": (_ok_enum, lambda c, v: f"Unsupported value: {show(v)}: supported values: "
                                    + ", ".join(show(x) for x in c)),
    "pattern": (_ok_pattern, lambda p, v: f"Invalid value: {show(v)}: must match '{p}'"),
    "minItems": (lambda n, v: not isinstance(v, list) or len(v) >= n,
                 lambda n, v: f"Invalid value: {show(v)}: must have at least {_plural(n, 'item')}"),
    "maxItems": (lambda n, v: not isinstance(v, list) or len(v) <= n,
                 lambda n, v: f"Too many: {len(v)}: must have at most {_plural(n, 'item')}"),
    "minLength": (lambda n, v: not isinstance(v, str) or len(v) >= n,
                  lambda n, v: f"Invalid value: {show(v)}: must be at least {_plural(n, 'character')} long"),
    "maxLength": (lambda n, v: not isinstance(v, str) or len(v) <= n,
                  lambda n, v: f"Too long: may not be more than {_plural(n, 'character')}"),
    "maxProperties": (lambda n, v: not isinstance(v, dict) or len(v) <= n,
                      lambda n, v: f"Too many: {len(v)}: must have at most {_plural(n, 'item')}"),
    "minimum": (lambda n, v: not _is_number(v) or v >= n,
                lambda n, v: f"Invalid value: {show(v)}: must be greater than or equal to {n}"),
    "maximum": (lambda n, v: not _is_number(v) or v <= n,
                lambda n, v: f"Invalid value: {show(v)}: must be less than or equal to {n}"),
    "quantity": (_ok_quantity, lambda _, v: f"Invalid value: {show(v)}: must be a quantity"
                 + ("" if isinstance(v, (str, int, float)) else ' (a string like "500m" or "4Gi", or a number)')),
    "intOrString": (_ok_int_or_string, lambda _, v: f"Invalid value: {show(v)}: must be an integer or a string"),
    "dateTime": (_ok_date_time, lambda _, v: f"Invalid value: {show(v)}: {_DATE_TIME_HINT}"),
}


def _leaf_keyword(ok, message):
    def keyword(validator, limit, instance, schema) -> Iterator[ValidationError]:
        if not ok(limit, instance):
            yield _error(message(limit, instance))
    return keyword


def _type(validator, expected, instance, schema) -> Iterator[ValidationError]:
    if instance is not None and not validator.is_type(instance, expected):
        yield _error(f'Invalid value: "{_type_name(instance)}": must be of type {expected}')


def _properties(validator, properties, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name, sub in properties.items():
            value = instance.get(name)
            if value is not None:
                yield from validator.descend(value, sub, path=name, schema_path=name)


def _additional_properties(validator, sub, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict) and isinstance(sub, dict):
        known = schema.get("properties", {})
        for name, value in instance.items():
            if value is not None and name not in known:
                yield from validator.descend(value, sub, path=name)


def _items(validator, sub, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, list):
        for i, item in enumerate(instance):
            yield from validator.descend(item, sub, path=i)


def _required(validator, required, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in required:
            if instance.get(name) is None:
                yield _error("Required value", path=(name,))


def _is_string(checker, v) -> bool:
    # YAML turns unquoted timestamps into datetime/date; in JSON they would be strings.
    return isinstance(v, (str, datetime, date))


KEYWORDS = {
    "type": _type, "properties": _properties, "additionalProperties": _additional_properties,
    "items": _items, "required": _required,
    **{name: _leaf_keyword(ok, message) for name, (ok, message) in LEAVES.items()},
}




# -- compiling --------------------------------------------------------------------------

def prepare(node: Any, kind: str, path: str = "") -> Any:
    """CRD schema -> the schema our keywords evaluate (see the module docstring)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    if node.get("x-kubernetes-int-or-string"):
        # controller-gen writes anyOf [integer, string] + pattern; one keyword reports it better.
        out["quantity" if node.get("pattern") == QUANTITY_PATTERN else "intOrString"] = True
        return out
    for key, value in node.items():
        if (kind, path, key) in _RELAXED_KEYWORDS or (key == "pattern" and value in _RELAXED_PATTERNS):
            continue
        if key == "properties":
            out[key] = {name: prepare(sub, kind, f"{path}.{name}" if path else name)
                        for name, sub in value.items()}
        elif key == "items":
            out[key] = prepare(value, kind, f"{path}[]")
        elif key == "additionalProperties":
            out[key] = prepare(value, kind, f"{path}.*")
        elif key == "format":
            if value == "date-time":
                out["dateTime"] = True
        elif key in KEYWORDS:
            out[key] = value
    if "required" in out:
        props = node.get("properties", {})
        out["required"] = [r for r in out["required"] if "default" not in props.get(r, {})
                           and (kind, path, r) not in _RELAXED_REQUIRED
                           and ("*", path, r) not in _RELAXED_REQUIRED]
        if not out["required"]:
            del out["required"]
    # Containers before scalars: a wrong type is reported before anything inside it.
    order = ("type", "required")
    return {k: out[k] for k in sorted(out, key=lambda k: (k not in order, order.index(k) if k in order else 0))}


# -- the fast path ----------------------------------------------------------------------
# jsonschema spends ~15 us per schema node it descends into (it re-creates a validator
# and a referencing resource each time): 2,600 Workloads/s, which would add 40 s to
# loading 100,000 of them. Nearly every object is valid, so each schema is also compiled
# into nested closures that only answer "valid or not" with the same keyword functions,
# and jsonschema runs only to describe an object the closures rejected. The two never
# disagree on the test corpus (tests/api/test_schema.py checks); if they did,
# jsonschema would win (see ``first_error``).

_PY_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict, "array": list, "string": (str, datetime, date), "boolean": bool,
    "integer": int, "number": (int, float)}
Check = Callable[[Any], bool]


def _all(checks: tuple[Check, ...]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(v) -> bool:
        for c in checks:  # noqa: SIM110 - hot path: a plain loop, no generator frame per value
            if not c(v):
                return False
        return True
    return check


def compile_check(schema: dict) -> Check:
    """A predicate: True exactly when the jsonschema validator of ``schema`` finds no error."""
    checks: list[Check] = []
    for key, value in schema.items():
        if key == "type":
            if (value == "object" and ("properties" in schema or "additionalProperties" in schema)) \
                    or (value == "array" and "items" in schema):
                continue  # checked by the properties/items closure below, in the same test
            py = _PY_TYPES[value]
            if value in ("integer", "number"):
                def is_number(v: Any, py: type | tuple[type, ...] = py) -> bool:
                    return v is None or (isinstance(v, py) and not isinstance(v, bool))
                checks.append(is_number)
            else:
                def is_type(v: Any, py: type | tuple[type, ...] = py) -> bool:
                    return v is None or isinstance(v, py)
                checks.append(is_type)
        elif key == "properties" or (key == "additionalProperties" and "properties" not in schema):
            # One pass over the keys the object has (usually far fewer than the schema's).
            subs = {name: compile_check(sub) for name, sub in schema.get("properties", {}).items()}
            extra = schema.get("additionalProperties")
            other = compile_check(extra) if isinstance(extra, dict) else None
            must_be_object = schema.get("type") == "object"

            def props(v, subs=subs, other=other, must_be_object=must_be_object) -> bool:
                if isinstance(v, dict):
                    for k, x in v.items():
                        if x is not None:
                            sub = subs.get(k, other)
                            if sub is not None and not sub(x):
                                return False
                    return True
                return v is None or not must_be_object
            checks.append(props)
        elif key == "items":
            sub = compile_check(value)
            must_be_array = schema.get("type") == "array"

            def items(v, sub=sub, must_be_array=must_be_array) -> bool:
                if isinstance(v, list):
                    for x in v:  # noqa: SIM110 - hot path: a plain loop, no generator frame per item
                        if not sub(x):
                            return False
                    return True
                return v is None or not must_be_array
            checks.append(items)
        elif key == "required":
            names = tuple(value)

            def required(v, names=names) -> bool:
                if isinstance(v, dict):
                    for n in names:
                        if v.get(n) is None:
                            return False
                return True
            checks.append(required)
        elif key == "pattern":
            pattern = _compiled(value)

            def matches(v: Any, search: Callable[[str], object] = pattern.search) -> bool:
                return not isinstance(v, str) or search(v) is not None
            checks.append(matches)
        elif key in LEAVES:
            ok = LEAVES[key][0]

            def leaf(v: Any, ok: Callable[[Any, Any], bool] = ok, limit: Any = value) -> bool:
                return ok(limit, v)
            checks.append(leaf)
    return _all(tuple(checks)) if checks else (lambda v: True)


@cache
def _crd(kind: str) -> dict | None:
    if not isinstance(kind, str) or not kind.isalpha():  # the kind names a file: no paths
        return None
    resource = files("kueue_doctor") / "data" / "crds" / f"{kind.lower()}.json"
    if not resource.is_file():
        return None
    return json.loads(resource.read_text(encoding="utf-8"))


@cache
def compiled(kind: str, version: str) -> tuple[dict, Check] | None:
    """(prepared schema, fast predicate) for a Kueue kind and version, or None if
    Kueue has no schema for it (e.g. Cohort v1alpha1, which parse.py still reads)."""
    crd = _crd(kind)
    if crd is None or version not in crd["versions"]:
        return None
    schema = prepare(crd["versions"][version], kind)
    return schema, compile_check(schema)


@cache
def _validator_class():
    from jsonschema import validators
    return validators.create(
        meta_schema={"$schema": "http://json-schema.org/draft-04/schema#"},
        validators=KEYWORDS, version="kueue-crd",
        type_checker=validators.Draft4Validator.TYPE_CHECKER.redefine("string", _is_string))


@cache
def jsonschema_validator(kind: str, version: str):
    """The jsonschema validator that describes what is wrong (compiled on first failure)."""
    c = compiled(kind, version)
    return None if c is None else _validator_class()(c[0])


def field_path(error: ValidationError) -> str:
    out = ""
    for part in error.absolute_path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def first_error(raw: dict, kind: str, version: str, fast: bool = True) -> ValidationError | None:
    """The first schema violation of ``raw`` (in schema order), or None.
    ``fast=False`` skips the closures' verdict and asks jsonschema directly."""
    c = compiled(kind, version)
    if c is None:
        return None
    if fast and c[1](raw):
        return None
    return next(jsonschema_validator(kind, version).iter_errors(raw), None)


def validate(raw: dict, kind: str, version: str) -> None:
    """Raise InputError(field=..., problem=...) for the first schema violation, if any."""
    err = first_error(raw, kind, version)
    if err is not None:
        raise InputError(err.message, field=field_path(err) or "(object)")


# -- unknown fields (kubectl --validate=strict) -----------------------------------------
# The API server prunes fields a structural schema does not declare; ``kubectl
# --validate=strict`` reports them (``unknown field "spec.resourceGroup"``). This walk is
# separate from the checks above and only ``validate`` runs it (``load_paths(...,
# collect=Collector(unknown_fields=True))`` or ``unknown_fields``): loading for the other
# commands never pays for it.
#
# A field is unknown when no shipped version of the kind declares it at that path: the
# schemas of every served version (v1beta1, v1beta2) are merged. A dump from a newer Kueue
# release may carry a field our copy of its own version lacks but the other version has
# (status.accumulatedPastExecutionTimeSeconds on a v1beta1 Workload, ...); that is not a
# mistake of the file. The price: a field of the other version (v1beta1's spec.cohort on a
# v1beta2 ClusterQueue) is not reported.
#
# Not checked (anything goes below them): ``metadata`` (ObjectMeta is the API server's,
# not the CRD's: managedFields, finalizers, ...), a node with
# ``x-kubernetes-preserve-unknown-fields`` or ``x-kubernetes-embedded-resource``, an object
# the schema gives no properties, and what ``scripts/reduce_crds.py`` cut from the shipped
# copies (a Workload's pod template: the upstream schema is the whole PodTemplateSpec).

# (kind, schema path) the shipped CRDs reduced: its fields are not all declared there.
_REDUCED = {("Workload", "spec.podSets[].template")}


@dataclass(slots=True)
class FieldTree:
    """The fields a schema node declares, merged over versions. ``props`` maps each declared
    field to its own tree (None: nothing to check below it, e.g. a scalar); ``extra`` is the
    tree every undeclared key is checked against when ``has_extra`` (``additionalProperties``
    with a schema); ``open`` accepts any other key (``additionalProperties: true``); ``items``
    is the tree of list items when ``array``."""
    props: dict[str, FieldTree | None] = field(default_factory=dict)
    has_extra: bool = False
    extra: FieldTree | None = None
    open: bool = False
    array: bool = False
    items: FieldTree | None = None


def _field_tree(node: Any, kind: str, path: str = "") -> FieldTree | None:
    """None: nothing to check below (a scalar, or a node whose fields are not all declared)."""
    if not isinstance(node, dict) or (kind, path) in _REDUCED:
        return None
    if node.get("x-kubernetes-preserve-unknown-fields") or node.get("x-kubernetes-embedded-resource"):
        return None
    tree = FieldTree()
    for name, sub in (node.get("properties") or {}).items():
        tree.props[name] = _field_tree(sub, kind, f"{path}.{name}" if path else name)
    extra = node.get("additionalProperties")
    if extra is True:
        tree.open = True
    elif isinstance(extra, dict):
        tree.has_extra = True
        tree.extra = _field_tree(extra, kind, f"{path}.*")
    if "items" in node:
        tree.array = True
        tree.items = _field_tree(node["items"], kind, f"{path}[]")
    for alt in ("anyOf", "allOf", "oneOf"):  # structural schemas only restate fields there
        for sub in node.get(alt) or []:
            other = _field_tree(sub, kind, path)
            if other is not None:
                tree = _merge(tree, other)
    if tree.open or (node.get("type") == "object" and not tree.props and not tree.has_extra):
        return None  # any field goes, or an object the schema does not describe (metadata)
    if not tree.props and not tree.has_extra and tree.items is None:
        return None  # a scalar, or a list of scalars
    return tree


def _merge_sub(a: FieldTree | None, b: FieldTree | None) -> FieldTree | None:
    """Both sides declare the field: unchecked below if either leaves it unchecked."""
    return None if a is None or b is None else _merge(a, b)


def _merge(a: FieldTree, b: FieldTree) -> FieldTree:
    out = FieldTree(open=a.open or b.open, has_extra=a.has_extra or b.has_extra, array=a.array or b.array)
    for name in a.props.keys() | b.props.keys():
        if name in a.props and name in b.props:
            out.props[name] = _merge_sub(a.props[name], b.props[name])
        else:
            out.props[name] = a.props[name] if name in a.props else b.props[name]
    if a.has_extra and b.has_extra:
        out.extra = _merge_sub(a.extra, b.extra)
    else:
        out.extra = a.extra if a.has_extra else b.extra
    if a.array and b.array:
        out.items = _merge_sub(a.items, b.items)
    else:
        out.items = a.items if a.array else b.items
    return out


@cache
def field_tree(kind: str) -> FieldTree | None:
    """The fields ``kind`` declares in any shipped version, or None if no CRD is shipped."""
    crd = _crd(kind)
    if crd is None:
        return None
    tree: FieldTree | None = None
    for schema in crd["versions"].values():
        t = _field_tree(schema, kind)
        if t is not None:
            tree = t if tree is None else _merge(tree, t)
    return tree


def _walk_unknown(value: Any, tree: FieldTree, path: str, out: list[str]) -> None:
    if isinstance(value, dict):
        if not tree.props and not tree.has_extra:
            return
        for k, v in value.items():
            key = str(k)
            where = f"{path}.{key}" if path else key
            if key in tree.props:
                sub = tree.props[key]
            elif tree.has_extra:
                sub = tree.extra
            elif tree.open:
                continue
            else:
                out.append(where)
                continue
            if sub is not None:
                _walk_unknown(v, sub, where, out)
    elif isinstance(value, list) and tree.items is not None:
        for i, v in enumerate(value):
            _walk_unknown(v, tree.items, f"{path}[{i}]", out)


def unknown_fields(raw: Any, kind: str) -> list[str]:
    """Paths of the fields of ``raw`` its kind's schema does not declare, in document order,
    like ``kubectl --validate=strict`` names them (``spec.resourceGroups[0].flavors[1].resources[0].nominalQuto``).
    Empty for a kind without a shipped schema (core kinds are not checked)."""
    tree = field_tree(kind)
    if tree is None or not isinstance(raw, dict):
        return []
    out: list[str] = []
    _walk_unknown(raw, tree, "", out)
    return out
