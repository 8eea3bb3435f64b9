"""Small wording helpers the steps and causes share."""
from __future__ import annotations

from datetime import timedelta

from ...duration import go


def minutes(d: timedelta) -> str:
    """A wait or an age as a Go duration (``1h55m``, ``48m12s``), like kubectl prints ages."""
    return go(d.total_seconds())


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def amount(resource: str, n: int) -> str:
    """An amount of a resource as people say it: ``6 GPUs``, ``1 GPU``, ``12 CPUs``, ``1.5Ti memory``,
    ``4 example.com/foo`` (report/text's human units)."""
    from ...api.quantity import human_amount
    text = human_amount(resource, n)
    if resource.endswith("/gpu"):
        return f"{text} GPU" + ("" if n == 1 else "s")
    if resource == "cpu":
        return f"{text} CPU" + ("" if n == 1000 else "s")
    return f"{text} {resource}"


def level_name(label: str) -> str:
    """A topology level as people say it: the node label's name without its prefix or a
    ``topology-`` prefix (``cloud.provider.com/topology-rack`` -> ``rack``; hostname -> ``node``)."""
    if label == "kubernetes.io/hostname":
        return "node"
    return label.rsplit("/", 1)[-1].removeprefix("topology-")
