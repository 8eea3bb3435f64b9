"""Controller logs in the forms people have them: split runtime lines, indented console lines,
console level words, klog text, JSON Lines at every verbosity, and files of no known form.

The lines are written in the shapes Kueue users pasted in public kubernetes-sigs/kueue issues
(names and values are ours):
- zap JSON at V(2), as in #8064 ("Scheduler repeatedly logs preemption attempts", 2025-12):
  {"level":"Level(-2)","ts":"…","logger":"scheduler","caller":"scheduler/scheduler.go:257","msg":…}
- console lines with a logger and without one, levels LEVEL(-2) and DEBUG, fields as JSON with
  ", " separators, as in #688 (an integration-test log, 2023-04);
- the same, indented by two spaces as Ginkgo prints a captured log, as in PR #654 (2023-03);
- console lines inside the CRI prefix ("<time> stderr F <line>"), as in #7336 (e2e artefacts,
  2025-10), and klog text inside it (`I0203 15:52:14.293869       1 httplog.go:134] "HTTP" verb=…`)
  as in #4140.
"""
from __future__ import annotations

import gzip
import json

import pytest

from kueue_doctor.logs import scan
from kueue_doctor.logs.brief import CRI, DOCKER, Unwrapper, brief, unwrap_lines
from tests.paths import INCIDENTS

from .excerpts import admitted, line, requeued, ts, zombie_cycles


@pytest.fixture(scope="module")
def plain_log():
    (folder,) = INCIDENTS.glob("01-*")
    return (folder / "kueue-controller-manager.log").read_bytes()


def summary(report):
    j = report.to_json()
    return (j["lines"], j["parsed"], j["malformed"], [(f["id"], f["count"], f["summary"]) for f in j["findings"]],
            j["perClusterQueue"], j["health"])


# --- CRI and Docker: lines the runtime split --------------------------------------------------

def cri_split(data: bytes, part: int) -> bytes:
    """Every line as containerd stores it, split into P parts of ``part`` bytes and an F part
    (containerd splits at 16 KiB; small parts put splits everywhere, across every boundary)."""
    out = []
    for i, ln in enumerate(data.splitlines()):
        stamp = b"2026-08-06T15:41:%02d.%09dZ stderr " % (i % 60, i)
        pieces = [ln[j:j + part] for j in range(0, len(ln), part)] or [b""]
        out += [stamp + b"P " + p + b"\n" for p in pieces[:-1]] + [stamp + b"F " + pieces[-1] + b"\n"]
    return b"".join(out)


def docker_split(data: bytes, part: int) -> bytes:
    out = []
    for ln in data.decode().splitlines():
        pieces = [ln[j:j + part] for j in range(0, len(ln), part)] or [""]
        pieces[-1] += "\n"
        out += [json.dumps({"log": p, "stream": "stderr", "time": "2026-08-06T15:41:28.95Z"}) + "\n" for p in pieces]
    return "".join(out).encode()


@pytest.mark.parametrize("split", [cri_split, docker_split])
@pytest.mark.parametrize("how", ["file-1", "file-2", "gzip", "stream"])
def test_split_runtime_lines_are_joined(plain_log, tmp_path, split, how):
    expected = summary(scan(plain_log.splitlines(keepends=True)))
    assert expected[3], "the incident's log has findings"
    data = split(plain_log, 97)
    assert data.count(b"\n") > 2 * plain_log.count(b"\n"), "most lines were split"
    if how == "gzip":
        path = tmp_path / "wrapped.log.gz"
        path.write_bytes(gzip.compress(data))
        got = scan(str(path), chunk_size=4096)
    elif how == "stream":
        got = scan([ln + b"\n" for ln in data.splitlines()], chunk_size=4096)
    else:
        path = tmp_path / "wrapped.log"
        path.write_bytes(data)
        # 4 KiB chunks, 32 KiB ranges: parts of one line fall in different chunks and ranges
        got = scan(str(path), workers=int(how[-1]), chunk_size=4096)
    assert summary(got) == expected
    assert got.to_json()["files"][0]["runtime"] == ("cri" if split is cri_split else "docker")


def test_a_split_line_across_feeds_is_one_line():
    a = b"2026-08-06T15:41:28.1Z stderr P " + b'{"level":"info","msg":"a'
    b = b"2026-08-06T15:41:28.1Z stderr P " + b"bc"
    c = b"2026-08-06T15:41:28.1Z stderr F " + b'd"}'
    u = Unwrapper(CRI)
    assert u.feed(a + b"\n") == b""
    assert u.feed(b + b"\n" + c + b"\n" + b"2026-08-06T15:41:29Z stdout F {}\n") == b'{"level":"info","msg":"abcd"}\n{}\n'
    assert u.finish() == b""
    # a run that never got its F part (the file was cut) is still offered, once
    assert unwrap_lines(a + b"\n", CRI) == b'{"level":"info","msg":"a\n'
    assert unwrap_lines(b'{"log":"x","stream":"stderr"}\n{"log":"y\\n","stream":"stderr"}\n', DOCKER) == b"xy\n"


def test_runtime_lines_stay_fast_when_none_is_split(plain_log, tmp_path):
    # the usual CRI file (only F lines) still goes through one regex substitution per chunk
    data = cri_split(plain_log, 1 << 20)
    assert b" P " not in data
    path = tmp_path / "cri.log"
    path.write_bytes(data)
    assert summary(scan(str(path), workers=2, chunk_size=4096)) == summary(scan(plain_log.splitlines(True)))


# --- console encoder ----------------------------------------------------------------------------

def console(json_line: str, indent: str = "") -> str:
    """A zap JSON line as the console encoder (development mode, capital levels) writes it."""
    obj = json.loads(json_line)
    level = obj.pop("level")
    level = level.upper() if not level.startswith("Level(") else "LEVEL(" + level[6:]
    head = [obj.pop("ts"), level, obj.pop("logger"), obj.pop("caller"), obj.pop("msg")]
    return indent + "\t".join(head) + "\t" + json.dumps(obj) + "\n"


def test_indented_console_lines_read_like_json():
    lines = zombie_cycles(12) + [admitted(100 + i, 500 + i, ("team-a", f"w{i}"), "team-a") for i in range(3)]
    expected = summary(scan(lines))
    pasted = [console(ln, indent="  ") for ln in lines]
    assert pasted[0].startswith("  2026-08-20T10:00:00") and "\tLEVEL(-3)\tscheduler\t" in pasted[0]
    got = scan(pasted)
    assert summary(got)[3:5] == expected[3:5]
    assert got.to_json()["files"][0]["forms"] == {"console": len(lines)}
    assert got.malformed == 0


def test_console_lines_without_a_logger_and_capital_levels():
    rows = [
        # a controller-runtime line without a logger: its caller is not taken for one
        "2026-08-20T12:24:56.273879077+03:00\tLEVEL(-2)\tcore/localqueue_controller.go:92\tReconciling LocalQueue\t"
        '{"controller": "localqueue", "localQueue": {"name":"lq","namespace":"team-a"}}',
        "2026-08-20T12:24:56.274858086+03:00\tDEBUG\tcontroller-runtime.webhook.webhooks\tadmission/http.go:96\t"
        'received request\t{"webhook": "/mutate-kueue-x-k8s-io-v1beta2-workload"}',
        "2026-08-20T12:24:57.1+03:00\tINFO\tsetup\tcmd/main.go:120\tStarting manager",
    ] + [f"2026-08-20T12:25:0{i}.5+03:00\tERROR\tcontroller\tcontroller/controller.go:316\tReconciler error\t"
         f'{{"controller": "workload", "error": "etcdserver: request timed out {i}"}}' for i in range(5)]
    report = scan([r + "\n" for r in rows])
    assert report.malformed == 0 and report.to_json()["files"][0]["forms"] == {"console": len(rows)}
    # an ERROR line counts as an error, as "level":"error" does in JSON
    assert report.health["errors"] == 5 and report.health["restarts"] == 1
    assert report.finding("controller-unhealthy") is not None
    assert brief(rows[0]).startswith("2026-08-20T12:24:56+03:00 V(2) Reconciling LocalQueue")
    assert brief("  " + rows[3]).startswith("2026-08-20T12:25:00+03:00 ERROR controller: Reconciler error")


def test_console_lines_inside_the_cri_prefix():
    lines = [admitted(i, 500 + i, ("team-a", f"w{i}"), "team-a") for i in range(4)]
    wrapped = [f"2026-08-20T10:00:0{i}.133092469Z stderr F " + console(ln) for i, ln in enumerate(lines)]
    report = scan(wrapped)
    assert report.per_cluster_queue["team-a"]["admitted"] == 4
    assert report.to_json()["files"][0]["forms"] == {"console": 4}


# --- klog text ----------------------------------------------------------------------------------

def klog(t: float, msg: str, caller: str = "scheduler.go:567", sev: str = "I", prefix: str = "", **kv) -> str:
    stamp = ts(t)   # 2026-08-20T10:00:00.000000000Z
    head = f"{sev}{stamp[5:7]}{stamp[8:10]} {stamp[11:26]}       1 {caller}] "
    pairs = " ".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}" for k, v in kv.items())
    return f"{prefix}{head}{json.dumps(msg)} {pairs}\n"


def test_klog_text_lines_are_read():
    # klog.KObj prints "ns/name", a cluster-scoped object's name alone
    first = admitted(0, 1, ("team-b", "anchor"), "team-b")   # the JSON line gives klog its year
    rows = [klog(1 + i, "Workload successfully admitted and assigned flavors", workload=f"team-a/w{i}",
                 clusterQueue="team-a", schedulingCycle=500 + i) for i in range(3)]
    rows += [klog(10 + i * 20, "Workload re-queued", workload="team-a/big", clusterQueue="team-a",
                  queue="team-a/default", requeueReason="", added=True, status="",
                  prefix="scheduler_test.go:88: " if i % 2 else "") for i in range(21)]
    rows.append(klog(500, "Reconciler error", caller="controller.go:316", sev="E", error="boom"))
    report = scan([first, *rows])
    j = report.to_json()
    assert j["perClusterQueue"]["team-a"]["admitted"] == 3
    assert j["perClusterQueue"]["team-a"]["retriedHeads"][0] == {
        "workload": "team-a/big", "attempts": 21, "requeueReason": "Generic", "reason": "",
        "first": "2026-08-20T10:00:10.000000Z", "last": "2026-08-20T10:06:50.000000Z"}
    assert report.finding("head-of-line-blocking") is not None
    assert j["health"]["errors"] == 1
    assert j["files"][0]["forms"] == {"json": 1, "klog": len(rows)} and j["malformed"] == 0
    assert brief(rows[0]).endswith("Workload successfully admitted and assigned flavors workload=team-a/w0 "
                                   "clusterQueue=team-a schedulingCycle=500")


def test_klog_inside_the_cri_prefix_is_klog():
    row = ('2026-02-03T15:52:14.294053609Z stderr F I0203 15:52:14.293869       1 httplog.go:134] "HTTP" verb="PUT" '
           'URI="/apis/kueue.x-k8s.io/v1beta2/namespaces/ml/workloads/w" latency="15.5ms" resp=409\n')
    report = scan([row])
    assert report.malformed == 0 and report.to_json()["files"][0] == {
        "file": "<lines>", "runtime": "cri", "lines": 1, "recognized": 1, "unrecognized": 0, "malformed": 0,
        "forms": {"klog": 1}}


# --- JSON Lines at every verbosity ----------------------------------------------------------------

@pytest.mark.parametrize("v", range(7))
def test_json_lines_at_every_level(v):
    # V(0) is "info", V(1) "debug", V(2)..V(6) "Level(-N)": every one is read the same way
    level = {0: "info", 1: "debug"}.get(v, f"Level(-{v})")
    lines = [admitted(i, 10 + i, ("team-a", f"w{i}"), "team-a").replace('"level":"Level(-2)"', f'"level":"{level}"')
             for i in range(3)]
    lines += [requeued(5 + i, 20 + i, ("team-a", "head"), "team-a", "NoFit").replace(
        '"level":"Level(-2)"', f'"level":"{level}"') for i in range(2)]
    assert all(f'"level":"{level}"' in ln for ln in lines)
    q = scan(lines).per_cluster_queue["team-a"]
    assert q["admitted"] == 3 and q["requeueReasons"] == {"NoFit": 2}
    err = line(1, "Reconciler error", v=0, error="x").replace('"level":"info"', '"level":"error"')
    assert scan([err]).health["errors"] == 1


# --- a file of no known form -----------------------------------------------------------------------

def test_a_file_of_no_known_form_says_so(tmp_path):
    good = tmp_path / "kueue.log"
    good.write_text("".join(zombie_cycles(3)))
    odd = tmp_path / "other.log"
    odd.write_text("".join(f"<134>Aug 20 10:00:{i:02d} host kueue[1]: something {i}\n" for i in range(40)) + "\n")
    report = scan([str(good), str(odd)])
    files = {f["file"]: f for f in report.to_json()["files"]}
    assert files[str(odd)] == {"file": str(odd), "runtime": None, "lines": 41, "recognized": 0, "unrecognized": 40,
                               "malformed": 41, "forms": {}}
    assert files[str(good)]["recognized"] == files[str(good)]["lines"] > 0
    assert [f["file"] for f in report.unrecognized_files()] == [str(odd)]
    assert report.unrecognized == 40
