"""Reports written to files: single offline HTML pages with Plotly charts (``charts.py``)."""
