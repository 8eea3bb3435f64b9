"""Where a ClusterState comes from: a gathered folder or a live cluster (read-only)."""
