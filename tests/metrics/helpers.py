"""Shared by the metrics tests: scrape a source the way Prometheus would."""
from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families


def scrape(source) -> dict[str, dict[tuple, float]]:
    """Render a source through a real registry and parse the exposition text back, so the tests
    see exactly what Prometheus would."""
    from kueue_doctor.metrics.collector import DoctorCollector
    reg = CollectorRegistry(auto_describe=False)
    reg.register(DoctorCollector(source))
    out: dict[str, dict[tuple, float]] = {}
    for fam in text_string_to_metric_families(generate_latest(reg).decode()):
        for s in fam.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


def series(metrics, name: str, **labels) -> dict[tuple, float]:
    return {k: v for k, v in metrics.get("kueue_doctor_" + name, {}).items()
            if all(dict(k).get(a) == b for a, b in labels.items())}
