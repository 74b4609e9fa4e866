"""Stand-in for CircuitPython's busio: the I2C bus is the bench's, a FakeI2C carrying FakeMPR121 chips.

Made again after a bus clear, it checks both lines read high first, as CircuitPython does.
"""

import rig


def I2C(scl, sda, frequency=100000):  # CircuitPython's is a class; code.py only calls it
    rig.bench.record("I2C", scl, sda, frequency)
    return rig.bench.i2c.reopen()
