"""Stand-in for CircuitPython's watchdog module: the modes code.py names."""


class WatchDogMode:
    RAISE = "RAISE"
    RESET = "RESET"
