"""The Prometheus exporter behind ``kueue-doctor serve``: the doctor's findings as gauges.

Every value is derived from one cluster state (a snapshot folder, a live cluster, a running
simulation) when that state is read, never from counters kept alongside it, so a restart or a
missed event cannot make the exporter drift from the truth.
"""
