"""Loading TAS objects: Topology, topology requests (field and annotations), topology assignments."""
import pytest

from kueue_doctor.api.load import load_documents
from kueue_doctor.errors import InputError


def wl(version: str, **ps_extra) -> dict:
    ps = {"name": "main", "count": 2, "template": {"spec": {"containers": [{"name": "c"}]}}, **ps_extra}
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ns"}, "spec": {"podSets": [ps]}}


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_topology_is_read(version):
    st = load_documents([{"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Topology",
                          "metadata": {"name": "t"}, "spec": {"levels": [{"nodeLabel": "rack"},
                                                                         {"nodeLabel": "kubernetes.io/hostname"}]}}])
    assert st.topologies["t"].levels == ["rack", "kubernetes.io/hostname"]


def test_topology_without_levels_is_rejected():
    with pytest.raises(InputError):
        load_documents([{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology",
                         "metadata": {"name": "t"}, "spec": {"levels": []}}])


def test_topology_request_field_and_multi_layer():
    raw = wl("v1beta2", topologyRequest={"required": "block", "podSetGroupName": "g",
                                          "podsetSliceRequiredTopologyConstraints": [{"topology": "rack", "size": 2}]})
    tr = next(iter(load_documents([raw]).workloads.values())).pod_sets[0].topology
    assert tr.required == "block" and tr.pod_set_group_name == "g"
    assert [(c.topology, c.size) for c in tr.constraints()] == [("rack", 2)]


def test_topology_request_from_v1beta1_pod_template_annotations():
    raw = wl("v1beta1")
    raw["spec"]["podSets"][0]["template"]["metadata"] = {"annotations": {
        "kueue.x-k8s.io/podset-preferred-topology": "rack",
        "kueue.x-k8s.io/podset-slice-required-topology": "host", "kueue.x-k8s.io/podset-slice-size": "2"}}
    tr = next(iter(load_documents([raw]).workloads.values())).pod_sets[0].topology
    assert tr.preferred == "rack" and tr.slice_required_topology == "host" and tr.slice_size == 2


def admitted(version: str, ta: dict) -> dict:
    raw = wl(version)
    raw["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "flavors": {}, "resourceUsage": {}, "count": 3, "topologyAssignment": ta}]},
        "unhealthyNodes": [{"name": "h2"}]}
    return next(iter(load_documents([raw]).workloads.values()))


def test_topology_assignment_v1beta2_slices_decode():
    w = admitted("v1beta2", {"levels": ["rack", "kubernetes.io/hostname"], "slices": [
        {"domainCount": 2, "valuesPerLevel": [{"universal": "r1"}, {"individual": {"prefix": "h", "roots": ["1", "2"]}}],
         "podCounts": {"individual": [1, 2]}}]})
    ta = w.status.admission.pod_set_assignments[0].topology_assignment
    assert [(d.values, d.count) for d in ta.domains] == [(("r1", "h1"), 1), (("r1", "h2"), 2)]
    assert w.status.unhealthy_nodes == ["h2"]


def test_topology_assignment_v1beta1_domains_decode():
    w = admitted("v1beta1", {"levels": ["kubernetes.io/hostname"], "domains": [{"values": ["h1"], "count": 3}]})
    ta = w.status.admission.pod_set_assignments[0].topology_assignment
    assert [(d.values, d.count) for d in ta.domains] == [(("h1",), 3)]
