"""kueue-doctor sweep: spec reading, knobs, expansion, Pareto front, executors, resuming."""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.errors import InputError
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sweep import run_sweep
from kueue_doctor.sweep.results import pareto_front
from kueue_doctor.sweep.spec import load_spec, parse_spec

from ..paths import REPO

SCENARIO = {
    "kind": "Simulation", "name": "two queues", "duration": "4h",
    "objects": [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "gpu"}},
        *({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": n},
           "spec": {"cohort": "all", "preemption": {"reclaimWithinCohort": "Never"},
                    "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                        "flavors": [{"name": "gpu", "resources": [
                                            {"name": "nvidia.com/gpu", "nominalQuota": 8}]}]}]}}
          for n in ("a", "b")),
        *({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": n},
           "spec": {"clusterQueue": n}} for n in ("a", "b")),
    ],
    "generators": [
        {"class": "a", "namespace": "a", "queue": "q", "count": 12, "start": 0, "every": "1m",
         "requests": {"nvidia.com/gpu": 4}, "runtime": "40m"},
        {"class": "b", "namespace": "b", "queue": "q", "count": 6, "start": "30m", "every": "2m",
         "requests": {"nvidia.com/gpu": 4}, "runtime": "30m"},
    ],
}
QUOTA = "ClusterQueue/*:spec.resourceGroups[*].flavors[*].resources[nvidia.com/gpu].nominalQuota"


def _spec(tmp_path: Path, **over) -> Path:
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(SCENARIO))
    spec = {"kind": "Sweep", "scenario": "scenario.yaml", "seed": 3, "replicates": 2, "jitter": {"runtime": 0.2},
            "parameters": [{"name": "quota", "path": QUOTA, "scale": [0.5, 1.0]},
                           {"name": "reclaim", "path": "ClusterQueue/a:spec.preemption.reclaimWithinCohort",
                            "values": ["Never", "Any"]}]}
    spec.update(over)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_grid_expands_in_order_with_stable_ids(tmp_path):
    spec = load_spec(str(_spec(tmp_path)))
    configs = spec.configurations()
    assert [c.values for c in configs] == [
        {"quota": 0.5, "reclaim": "Never"}, {"quota": 0.5, "reclaim": "Any"},
        {"quota": 1.0, "reclaim": "Never"}, {"quota": 1.0, "reclaim": "Any"}]
    assert len({c.id for c in configs}) == 4
    # the id is a digest of the values: the same configuration in another spec order keeps it
    again = load_spec(str(_spec(tmp_path, parameters=list(reversed(yaml.safe_load(
        (tmp_path / "sweep.yaml").read_text())["parameters"])))))
    assert {c.id for c in again.configurations()} == {c.id for c in configs}


def test_random_samples_are_seeded(tmp_path):
    params = [{"name": "quota", "path": QUOTA, "range": {"min": 2, "max": 16, "integer": True}},
              {"name": "rel", "path": "kueue.version", "values": ["0.13.2", "0.20.0"]}]
    a = load_spec(str(_spec(tmp_path, parameters=params, samples={"random": 5}))).configurations()
    b = load_spec(str(_spec(tmp_path, parameters=params, samples={"random": 5}))).configurations()
    c = load_spec(str(_spec(tmp_path, parameters=params, samples={"random": 5}, seed=4))).configurations()
    assert [x.values for x in a] == [x.values for x in b] != [x.values for x in c]
    assert all(isinstance(x.values["quota"], int) and 2 <= x.values["quota"] <= 16 for x in a)


@pytest.mark.parametrize(("param", "field", "words"), [
    ({"name": "x", "path": "ClusterQueue/a:spec.nope", "values": [1]}, "parameters[0].path", "unsupported field"),
    ({"name": "x", "path": "kueue.featureGates.NoSuchGate", "values": [True]}, "parameters[0].path",
     "unknown feature gate"),
    ({"name": "x", "path": "ClusterQueue/a:spec.preemption.reclaimWithinCohort", "values": ["Sometimes"]},
     "parameters[0].values[0]", "unsupported value 'Sometimes'"),
    ({"name": "x", "path": "ClusterQueue/a:spec.queueingStrategy", "scale": [2]}, "parameters[0].scale",
     "not a quantity"),
    ({"name": "x", "path": QUOTA, "values": ["lots"]}, "parameters[0].values[0]", "not a quantity"),
    ({"name": "x", "path": "kueue.version", "values": ["9.9"]}, "parameters[0].values[0]", "newer than the latest"),
    ({"name": "x", "path": QUOTA, "values": [1], "scale": [1]}, "parameters[0]", "exactly one of"),
])
def test_bad_parameters_name_file_and_field(tmp_path, param, field, words):
    path = _spec(tmp_path, parameters=[param])
    with pytest.raises(InputError) as e:
        load_spec(str(path))
    assert e.value.file == str(path) and e.value.field == field and words in e.value.problem


def test_a_knob_that_matches_nothing_fails_before_any_run(tmp_path):
    path = _spec(tmp_path, parameters=[{"name": "x", "path": "ClusterQueue/zz*:spec.queueingStrategy",
                                        "values": ["StrictFIFO"]}])
    with pytest.raises(InputError, match="no ClusterQueue named 'zz\\*'"):
        run_sweep(load_spec(str(path)), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_knobs_change_the_typed_objects(tmp_path):
    spec = load_spec(str(_spec(tmp_path)))
    scn = load_scenario(spec.scenario)
    quota, reclaim = spec.parameters
    assert quota.knob.apply(scn, 0.5, scaled=True) == 2
    assert reclaim.knob.apply(scn, "Any") == 1
    cqs = scn.state.cluster_queues
    assert [str(cqs[n].resource_groups[0].flavors[0].resources[0].nominal_quota) for n in "ab"] == ["4", "4"]
    assert (cqs["a"].preemption.reclaim_within_cohort, cqs["b"].preemption.reclaim_within_cohort) == ("Any", "Never")


def test_pareto_front_minimises_and_maximises():
    entries = [{"config": 0, "wait": 10.0, "util": 50.0}, {"config": 1, "wait": 5.0, "util": 40.0},
               {"config": 2, "wait": 12.0, "util": 45.0}, {"config": 3, "wait": 5.0, "util": 60.0},
               {"config": 4, "wait": math.nan, "util": 99.0}]
    assert pareto_front(entries, ["wait", "-util"]) == [3]
    assert pareto_front(entries, ["wait", "util"]) == [1]


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open()))


def test_local_workers_match_one_process_and_resume_skips(tmp_path):
    spec = load_spec(str(_spec(tmp_path)))
    one = run_sweep(spec, str(tmp_path / "one"), workers=1)
    two = run_sweep(spec, str(tmp_path / "two"), workers=2)
    assert (tmp_path / "one/results.csv").read_bytes() == (tmp_path / "two/results.csv").read_bytes()
    assert one.ran == two.ran == 8 and len(one.rows) == 8
    rows = _csv(tmp_path / "one/results.csv")
    # the knobs act: half the quota owes the queues less, so their violation seconds cannot grow
    by = {(r["param.quota"], r["param.reclaim"], r["replicate"]): r for r in rows}
    assert any(by[("0.5", "Never", rep)]["a.admissions"] != by[("1.0", "Never", rep)]["a.admissions"]
               or by[("0.5", "Never", rep)]["p90Wait"] != by[("1.0", "Never", rep)]["p90Wait"] for rep in "01")
    # replicates draw different runtimes, the same draws in every configuration
    assert by[("1.0", "Never", "0")]["seed"] == by[("0.5", "Any", "0")]["seed"] != by[("1.0", "Never", "1")]["seed"]
    again = run_sweep(spec, str(tmp_path / "one"), workers=1)
    assert (again.ran, again.skipped) == (0, 8)
    assert (tmp_path / "one/results.csv").read_bytes() == (tmp_path / "two/results.csv").read_bytes()
    import pyarrow.parquet as pq
    table = pq.read_table(tmp_path / "one/results.parquet")
    assert table.num_rows == 8 and "a.p90Wait" in table.column_names


def test_a_stopped_sweep_resumes_from_its_journal(tmp_path):
    spec = load_spec(str(_spec(tmp_path)))
    full = run_sweep(spec, str(tmp_path / "full"))
    journal = (tmp_path / "full/journal.jsonl").read_text().splitlines()
    part = tmp_path / "part"
    part.mkdir()
    (part / "journal.jsonl").write_text("\n".join(journal[:3]) + "\n" + journal[3][:40])  # torn last line
    (part / "sweep.json").write_text((tmp_path / "full/sweep.json").read_text())
    resumed = run_sweep(spec, str(part))
    assert (resumed.ran, resumed.skipped) == (5, 3)
    assert (part / "results.csv").read_bytes() == (tmp_path / "full/results.csv").read_bytes()
    assert full.ran == 8


def test_results_of_another_spec_are_not_mixed_in(tmp_path):
    run_sweep(load_spec(str(_spec(tmp_path))), str(tmp_path / "out"))
    other = load_spec(str(_spec(tmp_path, seed=9)))
    with pytest.raises(InputError, match="another spec"):
        run_sweep(other, str(tmp_path / "out"))
    assert run_sweep(other, str(tmp_path / "out"), restart=True).ran == 8


def test_cli_writes_tables_report_and_json(tmp_path):
    path = _spec(tmp_path)
    res = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(tmp_path / "o"), "-j", "1", "-o", "json"])
    assert res.exit_code == 0, res.output
    body = json.loads(res.output)
    assert body["kind"] == "SweepResults" and body["rows"] == 8 and body["paretoFront"]
    assert {Path(f).name for f in body["files"]} == {"results.csv", "results.parquet", "report.html"}
    assert "Pareto front" in (tmp_path / "o/report.html").read_text()
    text = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(tmp_path / "o")])
    assert text.exit_code == 0 and "0 run, 8 already in" in text.output and "CONFIG" in text.output


def test_cli_bad_spec_is_one_line_exit_2(tmp_path):
    path = _spec(tmp_path, parameters=[{"name": "x", "path": "Cohort/a:spec.preemption.x", "values": [1]}])
    res = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and str(path) in res.output and "parameters[0].path" in res.output


EXAMPLE = REPO / "examples/sweeps/philly-24.yaml"


def test_example_sweep_is_24_configurations():
    spec = load_spec(str(EXAMPLE))
    assert len(spec.configurations()) == 24


def test_example_sweep_same_table_on_ray_and_local(tmp_path):
    pytest.importorskip("ray")
    spec = parse_spec({**yaml.safe_load(EXAMPLE.read_text()), "until": "2h", "replicates": 1}, str(EXAMPLE))
    local = run_sweep(spec, str(tmp_path / "local"), executor="local", workers=2)
    ray_ = run_sweep(spec, str(tmp_path / "ray"), executor="ray", workers=2)
    assert local.ran == ray_.ran == 24
    assert (tmp_path / "local/results.csv").read_bytes() == (tmp_path / "ray/results.csv").read_bytes()
