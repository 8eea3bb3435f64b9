"""The six-step diagnosis: facts gathered once, steps, causes, explain."""
