"""``kueue-doctor serve``: the doctor's findings as Prometheus metrics."""
from __future__ import annotations

import signal
import sys
import threading

import click

from ..duration import duration
from ..errors import InputError
from .progress import phase
from .source import source_options


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``[V6]:PORT``; port 0 picks a free one (printed at startup)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise InputError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:9817")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        p = int(port)
    except ValueError:
        p = -1
    if not 0 <= p <= 65535:
        raise InputError(f"--listen {text!r}: port must be 0..65535")
    return host, p


def make_source(folder: str | None, kubeconfig: str | None, kube_context: str | None,
                simulate: str | None, min_wait: str, refresh: str, speed: float, in_cluster: bool = False):
    from datetime import timedelta

    from .. import metrics  # noqa: F401  (fail early, as one line, if prometheus_client is missing)
    live = bool(kubeconfig or kube_context or in_cluster)
    if sum((bool(folder), live, bool(simulate))) > 1:
        raise InputError("give one of a snapshot FOLDER, a cluster (--kubeconfig, --context, --in-cluster) "
                         "or --simulate SCENARIO, not several")
    wait = timedelta(seconds=duration(min_wait, "--min-wait"))
    every = duration(refresh, "--refresh")
    if every <= 0:
        raise InputError("--refresh must be positive")
    if not speed > 0:
        raise InputError("--speed must be positive")
    from ..metrics.sources import FolderSource, LiveSource, SimSource
    if folder:
        return FolderSource(folder, wait, every)
    if simulate:
        return SimSource(simulate, wait, every, speed)
    # neither a folder nor a scenario: the live cluster kubectl would talk to
    return LiveSource(kubeconfig, kube_context, wait, every, in_cluster=in_cluster)


@click.command("serve")
@click.argument("folder", required=False, type=click.Path())
@source_options
@click.option("--simulate", type=click.Path(), metavar="SCENARIO", help="Serve a simulation run as it goes.")
@click.option("--listen", default="127.0.0.1:9817", show_default=True, help="HOST:PORT to serve /metrics on.")
@click.option("--refresh", default="30s", show_default=True,
              help="How often to re-read the folder or the cluster.")
@click.option("--speed", default=60.0, show_default=True, type=float,
              help="Simulated seconds per wall second (--simulate).")
@click.option("--min-wait", default="5m", show_default=True, help="How long fitting work may wait.")
def command(folder: str | None, kubeconfig: str | None, kube_context: str | None, in_cluster: bool,
            simulate: str | None, listen: str, refresh: str, speed: float, min_wait: str) -> None:
    """Export guarantee violations, pending quota, cohort trees, free slots, stuck victims and
    the doctor's causes as Prometheus metrics (kueue_doctor_*), from a snapshot FOLDER
    (reloaded when it changes), a running simulation (--simulate), or else the live cluster
    kubectl would talk to (--kubeconfig, --context, $KUBECONFIG, ~/.kube/config; --in-cluster in
    a pod), read-only."""
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        raise InputError("serve needs the prometheus_client package: pip install 'prometheus_client>=0.19'") from None
    from prometheus_client import CollectorRegistry

    from ..metrics.collector import DoctorCollector
    from ..metrics.server import start_server
    host, port = parse_listen(listen)
    source = make_source(folder, kubeconfig, kube_context, simulate, min_wait, refresh, speed, in_cluster)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DoctorCollector(source))
    try:
        httpd, thread = start_server(host, port, registry, source)
    except OSError as e:
        raise InputError(f"--listen {listen}: {e.strerror or e}") from None
    done = threading.Event()

    def stop(*_):
        done.set()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    source.start()
    bound_host, bound_port = httpd.server_address[:2]
    bound_host = bound_host if isinstance(bound_host, str) else bytes(bound_host).decode()
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"kueue-doctor serve: listening on http://{shown}:{bound_port}/metrics", err=True)
    sys.stderr.flush()
    try:
        with phase("first load (/readyz says 503 until it is done)"):
            # a large cluster or folder takes a while: say so on a terminal, stop when loaded
            while not source.loaded() and source.last_error is None and not done.wait(0.2):
                pass
        while not done.wait(1.0):
            pass
    finally:
        source.stop()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
    click.echo("kueue-doctor serve: stopped", err=True)
