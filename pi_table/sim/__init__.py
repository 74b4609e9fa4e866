"""Simulators: the whole table in software, from a terminal or a script."""
