import json

from click.testing import CliRunner

from kueue_doctor.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_replay_json(sample_paths):
    nodes, pods = sample_paths
    r = run("frag", "replay", "--nodes", nodes, "--pods", pods, "--policy", "BestFit", "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert (out["apiVersion"], out["kind"]) == ("kueue-doctor.dev/v1alpha1", "FragReplay")
    assert {"allocation", "fragmentation"} <= set(out) and out["policy"] == "BestFit" and out["seed"] == 1
    cols = sorted(int(k) for k in out["allocation"])
    assert cols[0] == 0
    assert cols[-1] >= 128
    assert all(0 <= v <= 100 for v in out["allocation"].values())


def test_bad_input_is_one_line_exit_2(sample_paths, tmp_path):
    nodes, pods = sample_paths
    r = run("frag", "replay", "--nodes", nodes, "--pods", pods, "--policy", "Nope")
    assert r.exit_code == 2
    assert "unknown policy" in r.output
    assert r.output.count("\n") == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,lots,1,1,T4\n")
    r = run("frag", "replay", "--nodes", str(bad), "--pods", pods, "--policy", "FGD")
    assert r.exit_code == 2
    assert "bad.csv:2: cpu_milli: not a number" in r.output
    r = run("frag", "compare", "--nodes", nodes, "--pods", pods, "--seeds", "x-y")
    assert r.exit_code == 2
    assert "--seeds" in r.output


def test_compare_table_and_offline_html(sample_paths, tmp_path):
    nodes, pods = sample_paths
    html = tmp_path / "plot.html"
    r = run("frag", "compare", "--nodes", nodes, "--pods", pods, "--policies", "Random,FGD",
            "--seeds", "1-2", "--jobs", "1", "--html", str(html))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split()[:2] == ["policy", "runs"]
    assert {lines[1].split()[0], lines[2].split()[0]} == {"Random", "FGD"}
    assert all(line.split()[1] == "2" for line in lines[1:3])
    page = html.read_text()
    from tests.report.pages import figures, offline_problems
    assert offline_problems(page) == []
    figs = figures(page)
    assert len(figs) == 3
    assert all({tr["name"] for tr in f["data"] if tr.get("showlegend", True)} == {"Random", "FGD"}
               for f in figs.values())


def test_builtin_openb_names_say_where_to_download_the_trace(sample_paths):
    """openb is not shipped (no licence allows it): the builtin names fail in one line naming
    the file to download and where, through the resolver a scenario's path: uses."""
    nodes, pods = sample_paths
    for args, missing in ((["--nodes", "builtin:openb-nodes", "--pods", pods], "openb_node_list_gpu_node.csv"),
                          (["--nodes", nodes, "--pods", "builtin:openb-pods"], "openb_pod_list_default.csv")):
        r = run("frag", "replay", *args, "--policy", "FGD")
        assert r.exit_code == 2, r.output
        assert r.output.count("\n") == 1
        assert missing in r.output
        assert "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023/csv" in r.output
    r = run("frag", "replay", "--nodes", "builtin:nope", "--pods", pods, "--policy", "FGD")
    assert r.exit_code == 2
    assert "unknown sample builtin:nope" in r.output and "builtin:philly" in r.output
