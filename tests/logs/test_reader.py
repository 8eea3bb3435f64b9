"""Reading: formats, garbage, long lines, chunk boundaries, windows, the CLI and the examples
(the time formats themselves: tests/logs/test_timeparse.py)."""
from __future__ import annotations

import gzip
import json

from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.logs import scan
from kueue_doctor.logs.timeparse import parse_ts
from tests.paths import INCIDENTS

from .excerpts import admitted, line, ts, zombie_cycles


def test_garbage_truncated_blank_and_long_lines_are_counted_not_fatal():
    good = zombie_cycles(12)
    bad = ["goroutine 1 [running]:\n", "\n", good[3][:80] + "\n", '{"msg": broken}\n',
           '{"level":"info","msg":"dump","blob":"' + "x" * 5000 + '"}\n']
    lines = good[:5] + bad + good[5:]
    report = scan([s.encode() for s in lines], chunk_size=1024, max_line=2048)
    assert report.lines == len(lines)
    assert report.too_long == 1
    # garbage, blank, truncated and too long; '{"msg": broken}' is shaped like a record and is
    # not a candidate, so it is not decoded (documented in docs/logs.md).
    assert report.malformed == 4
    assert report.parsed == len(lines) - 4
    assert report.finding("stuck-preemption-target") is not None


def test_small_chunks_give_the_same_report_as_large_ones():
    lines = zombie_cycles(15) + [admitted(100 + i, 500 + i, ("team-a", f"w{i}"), "team-a") for i in range(5)]
    big = scan(lines).to_json()
    small = scan(lines, chunk_size=300).to_json()
    assert small == big


def test_gzip_console_and_stdin(tmp_path):
    lines = zombie_cycles(12)
    gz = tmp_path / "a.log.gz"
    with gzip.open(gz, "wb") as f:
        f.write("".join(lines).encode())
    assert scan(str(gz)).finding("stuck-preemption-target") is not None

    # The console encoder: ts, level, logger, caller, msg, then the fields as JSON.
    console = []
    for rec in lines:
        obj = json.loads(rec)
        head = [obj.pop(k) for k in ("ts", "level", "logger", "caller", "msg")]
        console.append("\t".join(head) + "\t" + json.dumps(obj) + "\n")
    report = scan(console)
    assert report.malformed == 0
    assert report.finding("stuck-preemption-target") is not None

    result = CliRunner().invoke(cli, ["logs", "-o", "json", "-"], input="".join(lines))
    assert result.exit_code == 1, result.output   # a failure signature found
    assert [f["id"] for f in json.loads(result.output)["findings"]] == ["stuck-preemption-target"]


def test_since_and_until_keep_only_records_inside_the_window():
    lines = zombie_cycles(30)  # cycles 1 s .. 59 s after T0
    inside = scan(lines, since=parse_ts(ts(20)), until=parse_ts(ts(45)))
    target = inside.finding("stuck-preemption-target")
    assert target is not None and target.detail["targets"]["team-c/zombie"]["cycles"] == 13
    assert inside.lines == len(lines)  # counts cover everything read
    assert scan(lines, since=parse_ts(ts(50))).finding("stuck-preemption-target") is None


def test_cli_json_shape_and_bad_input(tmp_path):
    log = tmp_path / "k.log"
    log.write_text("".join(zombie_cycles(12)))
    runner = CliRunner()
    out = json.loads(runner.invoke(cli, ["logs", "-o", "json", str(log)]).output)
    assert {"lines", "parsed", "malformed", "findings", "perClusterQueue"} <= set(out)
    assert set(out["findings"][0]) >= {"id", "count", "first", "last", "clusterQueues", "workloads", "examples"}
    assert out["findings"][0]["first"] == "2026-08-20T10:00:00.000000Z"

    bad = runner.invoke(cli, ["logs", "--since", "yesterday", str(log)])
    assert bad.exit_code == 2 and "--since" in bad.output and "Traceback" not in bad.output
    missing = runner.invoke(cli, ["logs", str(tmp_path / "nope.log")])
    assert missing.exit_code == 2 and "nope.log" in missing.output

    text = runner.invoke(cli, ["logs", str(log)])
    assert text.exit_code == 1 and "stuck-preemption-target" in text.output   # a signature found
    assert runner.invoke(cli, ["logs", "--fail-on", "never", str(log)]).exit_code == 0


def test_worked_examples_read_cleanly_and_point_at_their_causes():
    hol = scan(str(INCIDENTS / "01-strictfifo-head-of-line-blocking" / "kueue-controller-manager.log"))
    assert hol.malformed == 0 and hol.parsed == hol.lines == 2941
    assert [f.id for f in hol.findings] == ["head-of-line-blocking"]
    assert hol.findings[0].cluster_queues == ["perception"]
    assert hol.per_cluster_queue["perception"]["requeueReasons"] == {"NoFit": 195}

    inactive = scan(str(INCIDENTS / "02-inactive-queue-missing-flavor" / "kueue-controller-manager.log"))
    assert inactive.malformed == 0
    assert [f.id for f in inactive.findings] == ["inactive-queue"]
    assert inactive.findings[0].cluster_queues == ["voice"]


def test_line_helper_is_valid_zap_json():
    obj = json.loads(line(0, "x"))
    assert obj["ts"] == "2026-08-20T10:00:00.000000000Z"
