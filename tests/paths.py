"""Where the tests find files outside their own folder: the repository's, and the shared material."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
# The two gathered incident folders shipped with the project.
INCIDENTS = REPO / "examples" / "incidents"
# CI checks the shared material out beside the clone; a workstation may hold it at /work/shared.
SHARED = next((p for p in (REPO.parent / "shared", Path("/work/shared")) if p.is_dir()), REPO.parent / "shared")
