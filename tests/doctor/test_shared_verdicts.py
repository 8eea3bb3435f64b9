"""A queue at its nominal quota says the same of each pending workload: one verdict object
serves them all, and none of them can be changed through it."""
import pytest

from kueue_doctor.guarantee import Fit

from .cluster import cluster_queue, facts_of, flavor, local_queue, workload


def test_the_verdicts_of_a_queue_at_nominal_are_one_read_only_verdict(tmp_path):
    objs = [flavor("f", {"pool": "gpu"}), cluster_queue("q", {"f": 8}), local_queue("ns", "lq", "q"),
            workload("ns", "run", "lq", 8, admitted_to=("q", "f")),
            workload("ns", "a", "lq", 2), workload("ns", "b", "lq", 4)]
    g = facts_of(tmp_path / "s", objs).queues["q"].guarantee
    verdicts = list(g.verdicts.values())
    assert len(verdicts) == 2 and all(v.fit is Fit.QUEUE_AT_NOMINAL for v in verdicts)
    assert verdicts[0] is verdicts[1]
    with pytest.raises(TypeError):
        verdicts[0].placed[("f", "nvidia.com/gpu")] = 1   # type: ignore[index]
    assert not verdicts[1].placed
