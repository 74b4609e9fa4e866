"""Stand-in for CircuitPython's digitalio: every pin reads high (the maintenance jumper is off)."""

import rig


class Pull:
    UP = "UP"


class DigitalInOut:
    value = True

    def __init__(self, pin):
        rig.bench.record("pin", pin)

    def switch_to_input(self, pull=None):
        rig.bench.record("pull", pull)

    def deinit(self):
        rig.bench.record("deinit")
