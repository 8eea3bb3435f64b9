"""The object model: Kueue and core Kubernetes objects, quantities, loading."""
from .load import load_documents, load_paths
from .quantity import Quantity
from .state import ClusterState

__all__ = ["ClusterState", "Quantity", "load_documents", "load_paths"]
