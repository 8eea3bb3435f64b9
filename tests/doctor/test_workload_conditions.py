"""The facts read a workload's conditions from one look-up table (gather.conditions_of): the
state, the wait and the admission time are what Workload.condition and is_true say, the first
condition of a type counting, whatever the conditions repeat."""
import random
from datetime import UTC, datetime, timedelta

from kueue_doctor.api import objects as o
from kueue_doctor.doctor.facts import WorkloadState
from kueue_doctor.doctor.gather import admitted_at, conditions_of, waiting_since, workload_state

T0 = datetime(2024, 1, 1, tzinfo=UTC)
TYPES = ["QuotaReserved", "Admitted", "Evicted", "Requeued", "Finished", "Preempted"]


def by_accessors(w: o.Workload, now: datetime) -> tuple:
    """What the Workload's own accessors say, one look-up per question."""
    if w.is_true("Finished"):
        st = WorkloadState.FINISHED
    elif w.is_true("QuotaReserved"):
        st = WorkloadState.EVICTED_HOLDING_QUOTA if w.is_true("Evicted") else WorkloadState.ADMITTED
    else:
        st = WorkloadState.PENDING if w.active else WorkloadState.INACTIVE
    t = w.meta.creation_timestamp or now
    rq, ev = w.condition("Requeued"), w.condition("Evicted")
    if rq is not None and rq.last_transition_time and not w.is_true("Evicted"):
        t = max(t, rq.last_transition_time)
    if ev is not None and ev.last_transition_time and not w.is_true("QuotaReserved") and ev.status == "False":
        t = max(t, ev.last_transition_time)
    c = w.condition("Admitted") or w.condition("QuotaReserved")
    return st, t, c.last_transition_time if c is not None and c.status == "True" else None


def test_one_table_says_what_the_accessors_say():
    rng = random.Random(17)
    now = T0 + timedelta(hours=2)
    for i in range(3000):
        w = o.Workload(o.Meta(f"w{i}", "ns", creation_timestamp=rng.choice([None, T0])), active=rng.random() < 0.9)
        w.status.conditions = [
            o.Condition(rng.choice(TYPES), rng.choice(["True", "False"]),
                        last_transition_time=rng.choice([None, T0 + timedelta(minutes=rng.randint(0, 90))]))
            for _ in range(rng.choice([0, 1, 3, 6]))]
        conds = conditions_of(w)
        assert {t: w.condition(t) for t in conds} == conds and all(conds[t] is w.condition(t) for t in conds)
        assert (workload_state(w, conds), waiting_since(w, now, conds), admitted_at(w, conds)) == by_accessors(w, now)
        assert (workload_state(w), waiting_since(w, now), admitted_at(w)) == by_accessors(w, now)
