"""logs.brief: one log line as one short line, from every form a controller log reaches us in."""
from __future__ import annotations

import json

import pytest

from kueue_doctor.logs.brief import brief, unwrap_runtime

ZAP = ('{"level":"Level(-2)","ts":"2026-08-06T15:41:28.947421723Z","logger":"scheduler",'
       '"caller":"scheduler/scheduler.go:1017","msg":"Workload re-queued","replica-role":"leader",'
       '"schedulingCycle":278621,"workload":{"name":"pretrain-92dbb","namespace":"perception"},'
       '"clusterQueue":{"name":"perception"},"queue":{"name":"train","namespace":"perception"},'
       '"requeueReason":"NoFit","added":true,"status":""}')
SHORT = ("2026-08-06T15:41:28Z V(2) scheduler: Workload re-queued workload=perception/pretrain-92dbb "
         "clusterQueue=perception queue=perception/train schedulingCycle=278621 requeueReason=NoFit added=true")


def test_zap_json_line():
    assert brief(ZAP) == SHORT


@pytest.mark.parametrize("wrapped", [
    "2026-08-06T15:41:28.950000000Z stderr F " + ZAP,                        # containerd / CRI-O
    json.dumps({"log": ZAP + "\n", "stream": "stderr", "time": "2026-08-06T15:41:28.95Z"}),  # docker json-file
])
def test_container_runtime_forms_are_unwrapped(wrapped):
    assert unwrap_runtime(wrapped.encode()) == ZAP.encode()
    assert brief(wrapped) == SHORT


def test_console_encoder_line():
    line = ('2026-08-06T15:41:28.947Z\tLevel(-3)\tscheduler\tscheduler/logging.go:42\tWorkload evaluated for '
            'admission\t{"workload":{"name":"w","namespace":"ns"},"reason":"no quota left"}')
    assert brief(line) == ('2026-08-06T15:41:28Z V(3) scheduler: Workload evaluated for admission '
                           'workload=ns/w reason="no quota left"')


def test_error_level_and_big_blobs():
    line = json.dumps({"level": "error", "ts": "2026-08-06T15:41:28Z", "msg": "Reconciler error",
                       "nominatedAssignment": {"PodSets": [1, 2, 3]}, "error": "boom", "stacktrace": "a\nb"})
    assert brief(line) == "2026-08-06T15:41:28Z ERROR Reconciler error error=boom"


def test_other_text_comes_back_as_it_is():
    assert brief("not a log line at all") == "not a log line at all"


def test_keys_the_reader_knows_are_left_out():
    assert "workload=" not in brief(ZAP, omit=("workload",))
    assert "clusterQueue=perception" in brief(ZAP, omit=("workload",))
