"""Reading a gathered folder: which file is what."""
from __future__ import annotations

from kueue_doctor.sources.snapshot import load_folder


def test_metrics_file_is_not_read_as_a_log(tmp_path):
    # the names collect writes (tests/sources/test_collect.py checks it writes them)
    (tmp_path / "metrics.txt").write_text("kueue_pending_workloads{cluster_queue=\"a\",status=\"active\"} 1\n")
    (tmp_path / "kueue-controller-manager.log").write_text("")
    snap = load_folder(str(tmp_path))
    assert snap.metrics_file == str(tmp_path / "metrics.txt")
    assert snap.log_files == [str(tmp_path / "kueue-controller-manager.log")]
