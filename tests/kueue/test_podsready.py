"""WaitForPodsReady as each release runs a Configuration (kueue/podsready.py), checked against
upstream's apis/config/*/defaults.go and configuration_conversion.go at the tags."""
from __future__ import annotations

import pytest

from kueue_doctor.kueue.podsready import V1BETA1, V1BETA2, backoff_seconds, go_duration, resolve
from kueue_doctor.kueue.releases import release_for
from kueue_doctor.kueue.version import parse_version


def r(block, api, version, gates=None):
    return resolve(block, api, parse_version(version), gates)


def test_on_by_default_from_v0_19_with_30_minutes():
    # v1beta2 SetDefaults_Configuration puts an empty block in (v0.19+), timeout 30m
    s = r(None, V1BETA2, "0.19.0").settings
    assert s is not None and s.timeout == 1800 and s.block_admission is False
    assert s.recovery_timeout == 1800        # defaults to timeout
    assert s.requeuing.backoff_base_seconds == 60 and s.requeuing.backoff_max_seconds == 3600
    assert s.requeuing.backoff_limit_count is None and s.requeuing.timestamp == "Eviction"
    assert r(None, V1BETA2, "0.20.0").settings is not None
    assert r(None, None, "0.20.0").settings is not None        # no Configuration at all


@pytest.mark.parametrize("version", ["0.15.0", "0.16.0", "0.18.6"])
def test_off_without_a_block_before_v0_19(version):
    assert r(None, V1BETA2, version).settings is None


def test_the_disable_gate_turns_it_off_from_v0_19():
    assert r(None, V1BETA2, "0.19.1", {"DisableWaitForPodsReady": True}).settings is None
    assert release_for("0.19.0").pods_ready_by_default
    assert not release_for("0.19.0", {"DisableWaitForPodsReady": True}).pods_ready_by_default
    assert not release_for("0.18.6").pods_ready_by_default
    assert release_for("0.18.6", {"DisableWaitForPodsReady": True}).gates.get("DisableWaitForPodsReady") is False


def test_v1beta1_needs_enable_and_blocks_admission_by_default():
    # converted to no block unless enable: true, and the hub's defaults are not applied after
    assert r(None, V1BETA1, "0.20.0").settings is None
    assert r({"timeout": "10m"}, V1BETA1, "0.20.0").settings is None
    s = r({"enable": True}, V1BETA1, "0.20.0").settings
    assert s is not None and s.timeout == 300 and s.block_admission is True


def test_recovery_timeout_default_from_v0_16_and_zero_disables():
    assert r({"enable": True}, V1BETA1, "0.15.3").settings.recovery_timeout is None
    assert r({"enable": True}, V1BETA1, "0.16.0").settings.recovery_timeout == 300
    assert r({"timeout": "5m", "recoveryTimeout": "0s"}, V1BETA2, "0.20.0").settings.recovery_timeout is None


def test_v1beta2_block_without_timeout_is_rejected_before_v0_19():
    res = r({"blockAdmission": True}, V1BETA2, "0.18.0")
    assert res.settings is None and "timeout" in res.problem
    assert r({"blockAdmission": True}, V1BETA2, "0.19.0").settings.timeout == 1800


def test_requeuing_strategy_is_read():
    s = r({"timeout": "50s", "requeuingStrategy": {"timestamp": "Creation", "backoffLimitCount": 10,
                                                   "backoffBaseSeconds": 30, "backoffMaxSeconds": 1800}},
          V1BETA2, "0.20.0").settings
    assert (s.timeout, s.requeuing.timestamp, s.requeuing.backoff_limit_count) == (50, "Creation", 10)
    assert [s.backoff(n) for n in (1, 2, 3, 6, 7, 8)] == [30, 60, 120, 960, 1800, 1800]


def test_backoff_follows_wait_backoff_steps():
    # wait.Backoff{Duration: base, Factor: 2, Cap: max} stepped n times (jitter left out)
    assert [backoff_seconds(n, 60, 3600) for n in range(1, 9)] == [60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert backoff_seconds(1, 120, 60) == 120      # the first step is never capped
    assert backoff_seconds(2, 120, 60) == 60
    assert backoff_seconds(5, 60, 0) == 960        # max 0: no cap
    assert backoff_seconds(0, 60, 3600) == 0


def test_go_durations():
    assert go_duration("30m0s") == 1800 and go_duration("1h30m") == 5400 and go_duration("500ms") == 0.5
    assert go_duration("0") == 0 and go_duration("5 minutes") is None and go_duration("abc") is None
