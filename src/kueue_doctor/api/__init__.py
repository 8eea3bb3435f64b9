"""The object model: Kueue and core Kubernetes objects, quantities, loading."""
from .keys import WorkloadKey
from .load import load_documents, load_paths
from .quantity import Quantity
from .state import ClusterState

__all__ = ["ClusterState", "Quantity", "WorkloadKey", "load_documents", "load_paths"]
