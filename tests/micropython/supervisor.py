"""Stand-in for CircuitPython's supervisor: the bench's clock, and auto-reload as CircuitPython 8 has it."""

import rig


class _Runtime:
    autoreload = True


runtime = _Runtime()


def ticks_ms():
    return int(rig.bench.now_ms)
