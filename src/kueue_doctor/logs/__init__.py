"""Step 5 of the recipe: scan Kueue controller logs (V(5), zap JSON or console) for known signatures."""
from .report import LogReport
from .scanner import scan

__all__ = ["LogReport", "scan"]
