"""Stand-in for CircuitPython's storage: hiding the CIRCUITPY drive is recorded."""

import rig


def disable_usb_drive():
    rig.bench.record("drive hidden")
