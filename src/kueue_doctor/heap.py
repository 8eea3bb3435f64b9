"""Keep Python's cyclic garbage collector off the long-lived cluster state.

A loaded cluster is millions of long-lived objects (workloads, quantities, dataclasses). Each
full collection walks all of them, which stalled scheduling cycles by over a second. Freezing
the heap once it is built moves those objects out of the collector's reach; objects made
afterwards are collected as usual, in larger batches.
"""
from __future__ import annotations

import gc


def settle() -> None:
    # no gc.collect() first: on a 100,000-workload heap it alone takes about 2 s, and the little
    # garbage frozen with the state is not worth it
    gc.freeze()
    # fewer young-generation passes: the simulator allocates steadily and keeps most of it
    gc.set_threshold(50_000, 50, 100)
