"""Stand-in for CircuitPython's board module on a Raspberry Pi Pico: the pins the firmware names."""

GP4 = "GP4"
GP5 = "GP5"
GP22 = "GP22"
