"""The six steps of the recipe (shared/DESIGN.md), one module each, all reading the facts."""
