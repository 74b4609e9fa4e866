"""pi-table: a café table that runs Codenames-family games on a Raspberry Pi.

Layers, each importing only the ones before it (tests/test_layers.py checks):

    engine   the rules, pure: no I/O, no clock, no hardware
    hal      one interface per device kind, and the simulator backends
    ui       pure renderers: LED frames and spymaster screen models from the views
    table    the loop that owns the game: input policy, journal, session
    sim      the terminal and scripted simulators
    cli      the ``pi-table`` command
"""



def version() -> str:
    """This installation's version, from its package metadata: pyproject.toml sets it, once."""
    from importlib import metadata  # here, not above: CircuitPython loads this file too, and has no metadata

    try:
        return metadata.version("pi-table")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"
