"""The one resolver of trace paths: ``builtin:NAME`` for the samples shipped in the package, any
other text a file or folder relative to where it was named (a scenario's folder, the working
directory).

Shipped (``kueue_doctor/data/traces/``, each with its LICENSE and SOURCE.md):

- ``builtin:philly``: Microsoft Philly jobs as published by Gavel (MIT), every virtual cluster,
  the jobs a run of days 20-23 reads (``examples/traces/philly.yaml``).

Not shipped: the Alibaba openb trace (cluster-trace-gpu-v2023). alibaba/clusterdata has no licence
file (its issue #6 "Add license" is open since 2017); its README lets anyone use the traces "as long
as it is for reseach or study purpose", which grants no redistribution. ``builtin:openb-nodes`` /
``builtin:openb-pods``, and a missing file of that trace named by path, fail with one line saying
which file to download and from where.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from .errors import InputError

PREFIX = "builtin:"
OPENB_URL = "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023/csv"


@dataclass(frozen=True)
class Sample:
    resource: str    # under kueue_doctor/data/
    what: str


@dataclass(frozen=True)
class Download:
    file: str        # the file's name in the full trace
    url: str
    what: str


SHIPPED: dict[str, Sample] = {
    "philly": Sample("traces/philly", "Philly jobs (Gavel's per-virtual-cluster traces), days 20-23"),
}
NOT_SHIPPED: dict[str, Download] = {
    "openb-nodes": Download("openb_node_list_gpu_node.csv", OPENB_URL, "the Alibaba openb GPU node list"),
    "openb-pods": Download("openb_pod_list_default.csv", OPENB_URL, "the Alibaba openb pod list"),
}
# files of the openb trace: a missing one named by path gets the same hint
_OPENB_FILES = ("openb_node_list_", "openb_pod_list_")


def known_names() -> list[str]:
    return sorted([*SHIPPED, *NOT_SHIPPED])


def is_builtin(text: str) -> bool:
    return text.startswith(PREFIX)


def _download_hint(d: Download) -> str:
    return (f"{d.what} is not shipped with kueue-doctor (alibaba/clusterdata grants no licence to "
            f"redistribute it): download {d.file} from {d.url} and give its path")


def builtin_path(name: str, *, file: str = "", field: str = "") -> Path:
    """The packaged sample called ``name`` (without the ``builtin:`` prefix)."""
    if name in NOT_SHIPPED:
        raise InputError(f"{PREFIX}{name}: " + _download_hint(NOT_SHIPPED[name]), file=file, field=field)
    sample = SHIPPED.get(name)
    if sample is None:
        raise InputError(f"unknown sample {PREFIX}{name}: shipped are {', '.join(PREFIX + n for n in SHIPPED)}; "
                         f"not shipped (download): {', '.join(PREFIX + n for n in NOT_SHIPPED)}",
                         file=file, field=field)
    p = Path(str(files("kueue_doctor").joinpath("data", *sample.resource.split("/"))))
    if not p.exists():
        raise InputError(f"{PREFIX}{name}: the packaged sample is missing ({p}): reinstall kueue-doctor",
                         file=file, field=field)
    return p


def resolve(text: str, base: Path | None = None, *, file: str = "", field: str = "") -> Path:
    """``builtin:NAME`` as the packaged sample; any other path relative to ``base`` (or as given
    when ``base`` is None). The result exists; otherwise one ``InputError`` line names the
    missing path (with ``file`` and ``field``: where it was named) and, for a file of a trace
    that is not shipped, where to download it."""
    if is_builtin(text):
        return builtin_path(text[len(PREFIX):], file=file, field=field)
    p = base / text if base is not None else Path(text)
    return existing(p, file=file, field=field)


def existing(p: Path, *, file: str = "", field: str = "") -> Path:
    """``p`` if it exists, else one ``InputError`` line naming it (and where to get it, for a
    file of a trace that is not shipped)."""
    if p.exists():
        return p
    problem = f"no such file or directory: {p}"
    if p.name.startswith(_OPENB_FILES):
        problem += f" (the Alibaba openb trace is not shipped with kueue-doctor: download {p.name} from {OPENB_URL})"
    raise InputError(problem, file=file, field=field)
