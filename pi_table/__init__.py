"""pi-table: a café table that runs Codenames-family games on a Raspberry Pi.

Layers, each importing only the ones before it (tests/test_layers.py checks):

    engine   the rules, pure: no I/O, no clock, no hardware
    hal      one interface per device kind, and the simulator backends
    ui       pure renderers: LED frames and spymaster screen models from the views
    table    the loop that owns the game: input policy, journal, session
    sim      the terminal and scripted simulators
    cli      the ``pi-table`` command
"""

# A type comment, not an annotation: CircuitPython reads this file too.
_version = None  # type: str | None


def version() -> str:
    """This installation's version, from its package metadata: pyproject.toml sets it, once.
    Read when first asked, not at start-up: importing the metadata reader costs the daemon a
    tenth of its start."""
    global _version
    if _version is None:
        from importlib import metadata  # here, not above: CircuitPython loads this file too, and has no metadata

        try:
            _version = metadata.version("pi-table")
        except metadata.PackageNotFoundError:
            _version = "unknown (not installed)"
    return _version
