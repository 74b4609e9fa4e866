"""Stand-in for CircuitPython's usb_cdc: the data port is the bench's, with the host behind it."""

import rig


def enable(console=True, data=False):
    rig.bench.record("usb_cdc", console, data)


data = rig.bench.port
