import pytest

from kueue_doctor.errors import InputError
from kueue_doctor.frag.trace import read_nodes, read_pods


def test_sample_reads_sorted_with_simulator_rules(sample_paths):
    nodes = read_nodes(sample_paths[0])
    pods = read_pods(sample_paths[1])
    assert len(nodes) == 31
    assert len(pods) == 327
    assert [n.name for n in nodes] == sorted(n.name for n in nodes)
    assert [p.name for p in pods] == sorted(p.name for p in pods)
    assert all(g == 1000 for n in nodes for g in n.gpu_free)
    # no share may exceed one GPU, multi-GPU pods are whole-GPU, CPU-only pods have no models
    assert all(0 < p.shape.gpu_milli <= 1000 for p in pods if p.shape.gpus)
    assert all(p.shape.gpu_milli == 1000 for p in pods if p.shape.gpus > 1)
    assert all(not p.shape.models for p in pods if not p.shape.gpus)
    assert any(p.shape.models for p in pods)


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_clipping_and_zero_cpu(tmp_path):
    path = _write(tmp_path, "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                  "b,0,10,1,1500,\na,4000,10,2,1000,V100M16|V100M32\nc,100,1,0,500,T4\n")
    a, b, c = (p.shape for p in read_pods(path))
    assert (a.gpus, a.gpu_milli, a.models) == (2, 1000, frozenset({"V100M16", "V100M32"}))
    assert (b.cpu, b.gpu_milli) == (100, 1000)
    assert (c.gpus, c.gpu_milli, c.models) == (0, 0, frozenset())


@pytest.mark.parametrize(("text", "field"), [
    ("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,abc,1,0,0\n", "cpu_milli"),
    ("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,-1,0\n", "num_gpu"),
    ("name,cpu_milli,memory_mib,num_gpu\np,1,1,0\n", ""),
])
def test_bad_rows_are_input_errors(tmp_path, text, field):
    path = _write(tmp_path, "pods.csv", text)
    with pytest.raises(InputError) as e:
        read_pods(path)
    assert e.value.field == field
    assert "\n" not in str(e.value)
    assert path in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"no such file or directory: .*nope\.csv"):
        read_nodes(str(tmp_path / "nope.csv"))
    with pytest.raises(InputError, match="cannot read"):
        read_nodes(str(tmp_path))   # a folder: open() refuses it
