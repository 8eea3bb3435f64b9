"""Reports written to files (HTML with inline SVG)."""
