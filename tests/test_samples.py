"""The packaged trace samples and the one resolver of trace paths (kueue_doctor/samples.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kueue_doctor.errors import InputError
from kueue_doctor.samples import NOT_SHIPPED, OPENB_URL, SHIPPED, builtin_path, known_names, resolve

MB = 1 << 20


def test_known_names():
    assert known_names() == ["openb-nodes", "openb-pods", "philly"]


def test_builtin_philly_is_the_packaged_folder_with_its_licence():
    p = resolve("builtin:philly", Path("/nowhere"))   # the base does not matter for builtin names
    assert p.is_dir()
    assert p.parts[-3:] == ("data", "traces", "philly")
    assert len(list(p.glob("*.trace"))) == 15
    assert {"LICENSE", "SOURCE.md", "gavel_simulation_throughputs.json", "philly_vc.csv"} <= {q.name for q in p.iterdir()}
    assert "MIT License" in (p / "LICENSE").read_text()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_sample_is_small_and_says_where_it_comes_from(name):
    p = builtin_path(name)
    files = [q for q in p.rglob("*") if q.is_file()]
    assert sum(q.stat().st_size for q in files) < MB
    source = (p / "SOURCE.md").read_text()
    assert "https://" in source and "How the sample was cut" in source
    assert (p / "LICENSE").is_file()


def test_unknown_name_is_one_line_listing_the_known_names():
    with pytest.raises(InputError) as e:
        resolve("builtin:phily", file="s.yaml", field="traces[0].path")
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith("s.yaml: traces[0].path: unknown sample builtin:phily")
    for name in known_names():
        assert f"builtin:{name}" in text


@pytest.mark.parametrize("name", sorted(NOT_SHIPPED))
def test_a_trace_not_shipped_says_which_file_to_download_and_where(name):
    with pytest.raises(InputError) as e:
        resolve(f"builtin:{name}", field="--pods")
    text = str(e.value)
    assert "\n" not in text
    assert NOT_SHIPPED[name].file in text
    assert OPENB_URL in text
    assert "not shipped" in text


def test_other_paths_are_relative_to_the_base_and_must_exist(tmp_path):
    (tmp_path / "t.trace").write_text("")
    assert resolve("t.trace", tmp_path) == tmp_path / "t.trace"
    assert resolve(str(tmp_path / "t.trace")) == tmp_path / "t.trace"
    with pytest.raises(InputError) as e:
        resolve("u.trace", tmp_path, file="s.yaml", field="traces[0].path")
    assert str(e.value) == f"s.yaml: traces[0].path: no such file or directory: {tmp_path / 'u.trace'}"


def test_a_missing_openb_file_says_where_to_get_it(tmp_path):
    with pytest.raises(InputError) as e:
        resolve("openb/openb_pod_list_gpushare60.csv", tmp_path)
    text = str(e.value)
    assert "\n" not in text
    assert str(tmp_path / "openb" / "openb_pod_list_gpushare60.csv") in text
    assert OPENB_URL in text
