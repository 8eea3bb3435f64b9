"""kueue/layout: the snapshot folder's names and manifest, as both writers write them and the
folder source reads them back."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from kueue_doctor.kueue import layout
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sim.snapshot import write_snapshot
from kueue_doctor.sources.snapshot import load_folder


def test_time_round_trip_in_utc():
    at = datetime(2026, 8, 20, 12, 15, 2, tzinfo=timezone(timedelta(hours=2)))
    text = layout.format_time(at)
    assert text == "2026-08-20T10:15:02Z"
    assert layout.parse_time(text) == at


def test_a_naive_time_is_refused_rather_than_read_as_local():
    with pytest.raises(ValueError, match="timezone-aware"):
        layout.format_time(datetime(2026, 8, 20, 10, 15))


def test_controller_log_names():
    assert layout.is_controller_log(layout.CONTROLLER_LOG)
    assert layout.is_controller_log(layout.replica_log("kueue-controller-manager-7d9f-x2"))
    assert not layout.is_controller_log("notes.log") and not layout.is_controller_log(layout.MANIFEST)
    assert layout.CONTROLLER_LOG.endswith(layout.LOG_SUFFIXES)


def test_writers_lists_hold_each_name_once():
    for files in (layout.SIMULATED_FILES, layout.COLLECTED_FILES):
        assert len(set(files)) == len(files)
    # the simulator's folder is a subset of what collect writes, but for the log
    assert set(layout.SIMULATED_FILES) - set(layout.COLLECTED_FILES) == {layout.CONTROLLER_LOG}


def test_simulated_folder_is_read_back_by_the_folder_source(tmp_path):
    sim = Simulator(load_scenario(str(incident_path("zombie-pod")))).run(1800.0)
    written = write_snapshot(sim, tmp_path)
    assert [p.name for p in written] == [*layout.SIMULATED_FILES, layout.MANIFEST]
    manifest = json.loads((tmp_path / layout.MANIFEST).read_text())
    assert manifest[layout.FILES] == sorted(layout.SIMULATED_FILES)
    snap = load_folder(str(tmp_path))
    assert snap.taken_at == sim.dt(1800.0)
    assert snap.manifest == manifest
    assert snap.log_files == [str(tmp_path / layout.CONTROLLER_LOG)]
    assert snap.metrics_file is None


def test_metrics_files_are_not_logs(tmp_path):
    for name in layout.METRICS_FILES:
        (tmp_path / name).write_text("# HELP x\n")
    (tmp_path / layout.replica_log("a")).write_text("")
    snap = load_folder(str(tmp_path))
    assert snap.log_files == [str(tmp_path / layout.replica_log("a"))]
    assert snap.metrics_file is not None and snap.metrics_file.endswith(layout.METRICS_FILES)
