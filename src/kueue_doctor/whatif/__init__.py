"""What would admit a pending workload now: changes verified by running the engine's cycle."""
