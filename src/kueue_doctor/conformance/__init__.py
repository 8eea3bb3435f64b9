"""Running upstream Kueue's unit-test cases, transcribed as scenario files, against the engine."""
