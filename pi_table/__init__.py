"""pi-table: a café table that runs Codenames-family games on a Raspberry Pi.

Layers, each importing only the ones before it (tests/test_layers.py checks):

    engine   the rules, pure: no I/O, no clock, no hardware
    hal      one interface per device kind, and the simulator backends
    ui       pure renderers: LED frames and spymaster screen models from the views
    table    the loop that owns the game: input policy, journal, session
    sim      the terminal and scripted simulators
    cli      the ``pi-table`` command
"""

__version__ = "0.1.0"
