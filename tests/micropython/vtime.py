"""Stand-in for time, which the bench puts in sys.modules in its place (MicroPython reads its
built-in time before any file of that name): the bench's clock, on which sleep lets time pass
rather than waiting, so a scenario's timing (a retry's pause, a burst of failed transfers) is the
same however loaded the machine that runs it is."""

import rig


def sleep(seconds):
    rig.bench.now_ms += seconds * 1000


def ticks_ms():
    return int(rig.bench.now_ms)


def monotonic():
    return rig.bench.now_ms / 1000
