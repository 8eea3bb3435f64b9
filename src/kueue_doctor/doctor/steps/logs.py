"""Step 5: the controller log's known failure signatures (logs/)."""
from __future__ import annotations

from ...logs.brief import brief
from ..facts import Facts
from ..findings import Step, StepStatus


def step5(facts: Facts) -> Step:
    r = facts.read
    step = Step(5, "Kueue controller logs (V(5))", read={"logFiles": r.log_files, "logLines": r.log_lines,
                                                          "logLinesParsed": r.log_parsed})
    logs = facts.logs
    if logs is None:
        step.summary = ("cannot tell: no controller log in the snapshot: collect `kubectl logs -n kueue-system "
                        "deploy/kueue-controller-manager` with --zap-log-level=5")
        return step
    if logs.parsed == 0:
        step.summary = (f"cannot tell: none of {logs.lines} line(s) in {r.log_files} log file(s) parsed as a Kueue "
                        f"controller log line (zap JSON or console)")
        return step
    for f in logs.findings:
        j = f.to_json()
        step.evidence.append(f"{f.id}: {j.get('summary', '')}")
        for ex in (j.get("examples") or [])[:2]:
            step.evidence.append(f"  {brief(ex)}")
    step.status = StepStatus.FAIL if logs.findings else StepStatus.PASS
    step.summary = (f"{len(logs.findings)} known signature(s) in {logs.parsed} parsed log lines: "
                    + ", ".join(f.id for f in logs.findings)) if logs.findings else \
        f"no known failure signature in {logs.parsed} parsed log lines"
    return step
