"""RFC 7386 merge patch: the examples of its Appendix A, and inputs left unchanged."""
from __future__ import annotations

import pytest

from kueue_doctor.whatif.merge import merge_patch

# RFC 7386 Appendix A: (original, patch, result)
APPENDIX_A = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("original", "patch", "result"), APPENDIX_A)
def test_rfc7386_appendix_a(original, patch, result):
    assert merge_patch(original, patch) == result


def test_inputs_are_not_changed():
    original = {"spec": {"resourceGroups": [{"flavors": [{"name": "a"}]}], "x": 1}}
    patch = {"spec": {"resourceGroups": [{"flavors": [{"name": "b"}]}], "x": None}}
    out = merge_patch(original, patch)
    out["spec"]["resourceGroups"][0]["flavors"][0]["name"] = "c"
    assert original == {"spec": {"resourceGroups": [{"flavors": [{"name": "a"}]}], "x": 1}}
    assert patch["spec"]["resourceGroups"][0]["flavors"][0]["name"] == "b"
