"""WorkloadKey: the one name of a Workload, ``(namespace, name)``.

Upstream names a workload by ``workload.Key`` (``"namespace/name"``, pkg/workload); here the
two parts stay apart everywhere in between, and the text form exists only at the edges: user
input, case files, log lines and annotations are parsed with ``parse``, and outputs render
with ``str()``. A key never reaches a JSON or YAML writer as is: a tuple would be written as
a list (and cannot be a mapping key at all).

Keys compare and sort as tuples, namespace first. That is not the order of their text
(``"team-a/x" < "team/x"`` but ``("team", "x") < ("team-a", "x")``): where an output keeps
the order it had when keys were strings, it sorts with ``key=str``.

A key is a tuple subclass, which the cyclic collector tracks for as long as it lives (unlike a
string, or an exact tuple of strings): pass the one a workload already has (``ClusterState``'s,
``WorkloadInfo.key``) rather than building another.
"""
from __future__ import annotations

from typing import NamedTuple, Protocol

from .errors import InputError


class Named(Protocol):
    """What names a namespaced object: ``api.objects.Meta``."""
    namespace: str
    name: str


class WorkloadKey(NamedTuple):
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def parse(cls, text: str) -> WorkloadKey:
        """``"NAMESPACE/NAME"`` -> its key; anything else is an ``InputError``."""
        ns, sep, name = text.partition("/")
        if not sep or not ns or not name or "/" in name:
            raise InputError(f"{text!r}: expected NAMESPACE/NAME of a Workload")
        return cls(ns, name)

    @classmethod
    def of(cls, meta: Named) -> WorkloadKey:
        """The key of the object ``meta`` describes."""
        return cls(meta.namespace, meta.name)
