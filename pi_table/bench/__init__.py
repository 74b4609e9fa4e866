"""Benchmarks that print their figures (run them with ``pi-table bench``)."""
