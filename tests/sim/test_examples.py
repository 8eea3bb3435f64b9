"""The trace examples (examples/traces/*.yaml) on a fresh clone: run from a working directory
that has no ../shared beside it. Philly reads the sample shipped in the package; openb, which is
not shipped, stops with one line saying what to download and where."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.samples import OPENB_URL
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import REPO, SHARED

EXAMPLES = REPO / "examples" / "traces"
FULL_PHILLY = SHARED / "data" / "philly"
FULL_OPENB = SHARED / "data" / "openb"


def _in(folder: Path, fn, *args):
    """``fn(*args)`` with ``folder`` as the working directory."""
    old = os.getcwd()
    os.chdir(folder)
    try:
        return fn(*args)
    finally:
        os.chdir(old)


def _fresh_copy(tmp: Path, name: str) -> Path:
    shutil.copy(EXAMPLES / name, tmp / name)
    assert not (tmp.parent / "shared").exists()
    return tmp / name


def test_philly_example_runs_on_the_packaged_sample_from_anywhere(tmp_path):
    _fresh_copy(tmp_path, "philly.yaml")
    scn = _in(tmp_path, load_scenario, "philly.yaml")
    assert len(scn.workloads) == 856                # SOURCE.md: the jobs the run reads
    assert len(scn.state.cluster_queues) == 15      # every virtual cluster, even those with no job
    s = Simulator(scn).run(6 * 3600.0).recorder.summary()   # six hours: it runs, it admits
    assert s["workloads"]["admitted"] > 0


@pytest.mark.skipif(not FULL_PHILLY.is_dir(), reason=f"no full Philly trace at {FULL_PHILLY}")
def test_the_philly_sample_holds_every_row_the_run_of_the_full_trace_reads(tmp_path):
    """The same queues, nodes and settings, and the same workloads arriving before the run ends
    (the simulator creates no other): the runs are the same run (docs/simulator.md, "Traces")."""
    sample = _in(tmp_path, load_scenario, str(_fresh_copy(tmp_path, "philly.yaml")))
    text = (EXAMPLES / "philly.yaml").read_text()
    assert "path: builtin:philly" in text
    (tmp_path / "full.yaml").write_text(text.replace("path: builtin:philly", f"path: {FULL_PHILLY}", 1))
    full = load_scenario(str(tmp_path / "full.yaml"))
    end = full.settings.duration
    assert end and end == sample.settings.duration
    assert sample.state == full.state
    assert sample.nodes == full.nodes

    def arriving(scn):
        return sorted((w for w in scn.workloads if w.at <= end), key=lambda w: (w.at, w.namespace, w.name))
    assert arriving(sample) == arriving(full)
    assert len(arriving(sample)) == len(sample.workloads)   # and nothing more


def test_openb_example_without_the_download_is_one_line_naming_the_file_and_where_to_get_it(tmp_path, monkeypatch):
    shutil.copy(EXAMPLES / "openb.yaml", tmp_path / "openb.yaml")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["simulate", "openb.yaml"])
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1
    line = r.output.strip()
    assert line.startswith("openb.yaml: traces[0].path: no such file or directory: openb/openb_pod_list_default.csv")
    assert OPENB_URL in line


@pytest.mark.skipif(not FULL_OPENB.is_dir(), reason=f"no openb trace at {FULL_OPENB}")
def test_openb_example_runs_once_the_trace_is_downloaded_beside_it(tmp_path):
    shutil.copy(EXAMPLES / "openb.yaml", tmp_path / "openb.yaml")
    (tmp_path / "openb").mkdir()
    for name in ("openb_pod_list_default.csv", "openb_node_list_gpu_node.csv"):
        shutil.copy(FULL_OPENB / name, tmp_path / "openb" / name)
    scn = _in(tmp_path, load_scenario, "openb.yaml")
    assert sorted(scn.state.cluster_queues) == [f"tenant-{i}" for i in range(4)]
    assert Simulator(scn).run(6 * 3600.0).recorder.summary()["workloads"]["admitted"] > 0
