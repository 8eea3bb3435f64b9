"""The one definition of a guarantee violation (shared/DESIGN.md, "Words").

Work of a ClusterQueue that would fit inside its nominal quota (counting what the queue
already uses), on a flavor the work can actually use, has waited longer than a threshold
without running. Work that fits only by borrowing is not guaranteed. The doctor, the
exporter and the simulator call ``Evaluator.evaluate``; nothing else re-derives it.
"""
from .evaluate import Evaluator
from .observation import NotRunning, QueueObservation, Waiting
from .verdict import DEFAULT_MIN_WAIT, Fit, FitVerdict, QueueGuarantee

__all__ = ["DEFAULT_MIN_WAIT", "Evaluator", "Fit", "FitVerdict", "NotRunning", "QueueGuarantee",
           "QueueObservation", "Waiting"]
