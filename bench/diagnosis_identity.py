"""Check that `diagnose -o json` says byte for byte what a base commit says (run by hand).

    git worktree add --detach /tmp/base e89079e
    python bench/diagnosis_identity.py /tmp/base [--big /tmp/big/yaml ...] [--cache /tmp/ident]

Runs `python -m kueue_doctor diagnose FOLDER -o json` with the base tree's sources and with this
tree's on every snapshot folder under tests/data, examples/incidents and
../shared/examples/incidents (and any --big folder), and prints each folder that differs. The
base's outputs are cached (per folder) under --cache: the base does not change.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def folders() -> list[Path]:
    out = []
    shared = ROOT.parent / "shared" / "examples" / "incidents"
    for top in (ROOT / "tests" / "data", ROOT / "examples" / "incidents", shared):
        if top.is_dir():
            out += sorted(p.parent for p in top.rglob("*.yaml") if p.parent != top)
            out += sorted(p.parent for p in top.rglob("manifest.json"))
    return sorted(set(out))


def run(src: Path, folder: Path) -> bytes:
    env = dict(os.environ, PYTHONPATH=str(src))
    r = subprocess.run([sys.executable, "-m", "kueue_doctor", "diagnose", str(folder), "-o", "json"],
                       env=env, capture_output=True)
    return r.stdout + f"\nexit {r.returncode}\n".encode() + r.stderr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", help="a worktree of the base commit")
    ap.add_argument("--big", action="append", default=[])
    ap.add_argument("--cache", default="/tmp/diagnosis-identity")
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    bad = 0
    todo = folders() + [Path(b) for b in args.big]
    for folder in todo:
        key = cache / (hashlib.sha1(str(folder.resolve()).encode()).hexdigest() + ".out")
        if not key.exists():
            key.write_bytes(run(Path(args.base) / "src", folder))
        before, after = key.read_bytes(), run(ROOT / "src", folder)
        same = before == after
        bad += not same
        print(f"{'same' if same else 'DIFFERS':8} {folder}", flush=True)
        if not same:
            (cache / (key.stem + ".new")).write_bytes(after)
    print(f"{len(todo) - bad} of {len(todo)} identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
