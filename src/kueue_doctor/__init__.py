"""kueue-doctor: find and explain Kueue guarantee violations."""
__version__ = "0.1.0"
