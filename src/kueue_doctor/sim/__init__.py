"""A deterministic discrete-event simulator that drives the engine through time."""
