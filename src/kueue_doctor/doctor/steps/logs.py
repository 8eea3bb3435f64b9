"""Step 5: the controller log's known failure signatures (logs/)."""
from __future__ import annotations

from pathlib import Path

from ..facts import Facts
from ..findings import Step, StepStatus

FORMS = "zap JSON, console, klog text; plain or as CRI and Docker store them"


def step5(facts: Facts) -> Step:
    r = facts.read
    step = Step(5, "Kueue controller logs (V(5))", read={"logFiles": r.log_files, "logLines": r.log_lines,
                                                          "logLinesParsed": r.log_parsed})
    logs = facts.logs
    if logs is None:
        step.summary = ("cannot tell: no controller log in the snapshot: collect `kubectl logs -n kueue-system "
                        "deploy/kueue-controller-manager` with --zap-log-level=5")
        return step
    from ...logs.brief import brief  # the log reader (numpy and all) only where there is a log
    unread = logs.unrecognized_files()
    for u in unread:
        step.evidence.append(f"{Path(u['file']).name}: none of its {u['lines']} line(s) is a controller log line "
                             f"of a form kueue-doctor reads ({u['unrecognized']} unrecognised)")
    if logs.unrecognized:
        step.read["logLinesUnrecognized"] = logs.unrecognized
    if logs.parsed == 0:
        step.summary = (f"cannot tell: none of {logs.lines} line(s) in {r.log_files} log file(s) parsed as a Kueue "
                        f"controller log line ({FORMS})")
        return step
    for f in logs.findings:
        j = f.to_json()
        step.evidence.append(f"{f.id}: {j.get('summary', '')}")
        for ex in (j.get("examples") or [])[:2]:
            step.evidence.append(f"  {brief(ex)}")
    if logs.findings:
        step.status = StepStatus.FAIL
        step.summary = (f"{len(logs.findings)} known signature(s) in {logs.parsed} parsed log lines: "
                        + ", ".join(f.id for f in logs.findings))
    elif unread:
        # a file that could not be read says nothing about the controller: never "no findings"
        names = ", ".join(f"{Path(u['file']).name} ({u['lines']} lines)" for u in unread[:3])
        step.summary = (f"cannot tell: {len(unread)} of {r.log_files} log file(s) hold no line of a form kueue-doctor "
                        f"reads ({FORMS}): {names}; no known failure signature in the {logs.parsed} parsed "
                        f"line(s) of the others")
    else:
        step.status = StepStatus.PASS
        step.summary = f"no known failure signature in {logs.parsed} parsed log lines" + (
            f" ({logs.unrecognized} line(s) of no known form skipped)" if logs.unrecognized else "")
    return step
