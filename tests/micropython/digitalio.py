"""Stand-in for CircuitPython's digitalio: the maintenance pin reads high (its jumper is off), and
the I2C pins (GP4 SDA, GP5 SCL) are the bench's bus lines, which a bus clear drives."""

import rig

LINES = {"GP4": "SDA", "GP5": "SCL"}


class Pull:
    UP = "UP"


class DriveMode:
    PUSH_PULL = "PUSH_PULL"
    OPEN_DRAIN = "OPEN_DRAIN"


class _Pin:
    value = True

    def __init__(self, pin):
        rig.bench.record("pin", pin)

    def switch_to_input(self, pull=None):
        rig.bench.record("pull", pull)

    def deinit(self):
        rig.bench.record("deinit")


def DigitalInOut(pin):  # CircuitPython's is a class; the firmware only makes pins with it
    if pin in LINES:
        return rig.bench.i2c.line(LINES[pin])
    return _Pin(pin)
