"""``run.kind: drs`` (DRS-FORMAT.md)."""
from __future__ import annotations

from ..engine.drs import dominant_resource_share
from ..engine.snapshot import build_snapshot
from .compare import compare_maps
from .scenario import Scenario
from .setup import engine_config, prepare_state


def flavor_map(raw) -> dict:
    from ..api.quantity import Quantity
    out = {}
    for flavor, res in (raw or {}).items():
        for r, q in res.items():
            out[(flavor, r)] = Quantity.parse(q).amount(r)
    return out


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    snap = build_snapshot(prepare_state(scn), cfg)
    req = flavor_map(scn.run.get("workloadRequest"))
    borrowing_on = flavor_map(scn.run.get("borrowingOnRequest"))
    got: dict[str, dict[str, int | str | bool]] = {
        "drs": {}, "drsDominantResource": {}, "drsBorrowing": {}, "drsBorrowingOn": {}}
    for node in snap.nodes():
        d = dominant_resource_share(node, req, cfg.drs_mode)
        got["drs"][node.name] = d.rounded()
        got["drsDominantResource"][node.name] = d.dominant if d.rounded() else ""
        got["drsBorrowing"][node.name] = d.borrowing
        base = dominant_resource_share(node, {}, cfg.drs_mode)
        got["drsBorrowingOn"][node.name] = base.is_borrowing_on([fr for fr, v in borrowing_on.items() if v > 0])
    diffs = []
    for key in ("drs", "drsDominantResource", "drsBorrowing", "drsBorrowingOn"):
        if key in scn.expect:
            exact = key != "drsBorrowingOn" and "drsBorrowingOn" not in scn.expect
            diffs += compare_maps(key, scn.expect[key], got[key], exact=exact)
    return diffs
