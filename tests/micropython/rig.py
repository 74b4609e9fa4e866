"""The bench the touch-board firmware runs on under MicroPython (tests/test_firmware_micropython.py).

The CircuitPython modules boot.py and code.py import are stand-ins beside this file. Behind them
are a FakeI2C bus carrying FakeMPR121 chips (pi_table/sim/mpr121.py, the very fake the CPython
tests use) and a port with the host behind it. The host follows scenario.json, which the test
writes: at a given step, frames to send (encoded by the host's own codec), pads to touch or
release, chips to unplug or plug, room to leave in the port's buffer, and what a café's
electricity does: a chip reset by a brown-out, one I2C transfer in N failing, a burst that fails
every transfer for some milliseconds, a chip holding SDA low. TouchBoard reads the port once per
step, so that read is the moment between two steps: the clock moves on, the host acts. The clock
is the bench's: time is a stand-in (vtime.py) whose sleep moves it on, so the firmware's pauses
(code.py's between steps, those between a failed transfer's retries) take their time on it, and a
burst meets the same transfers however loaded the machine is.

A scenario with ``probe`` set keeps two fingers on each chip, on its electrodes 0 and 1 in turn,
changing over every ``probe`` steps, so at every moment one pad of each chip is touched; the
bench notes which after each step (``truth``) and how many bytes the board had sent by then
(``marks``), so the test can tell, step by step, whether each chip's touches reached the host.

The test runs these as top-level scripts, one after the other (MicroPython under WebAssembly
collects garbage only between them): load(), measure("bench"), run("boot.py"), run("code.py"),
report(), measure("firmware"), then prints the heap figures.
"""

import binascii
import gc
import json
import sys

from pi_table.sim.mpr121 import FakeI2C, FakeMPR121

ADDRESSES = (0x5A, 0x5B, 0x5C)
PINS = 12
STAND_INS = ("board", "busio", "digitalio", "microcontroller", "storage", "supervisor", "usb_cdc", "watchdog", "vtime")
CHECKED = (0x41, 0x42, 0x5C, 0x5D, 0x5E, 0x7B)  # electrode 0's thresholds, CONFIG1, CONFIG2, ECR, AUTOCONFIG0
PROBE_COUNTS = 40  # a finger on a probe pad: far past any threshold the scenarios set
bench = None


class Stop(Exception):
    """Ends code.py's endless loop: microcontroller.reset(), or the scenario running out."""


class Port:
    """usb_cdc.data: a write takes what ``room`` leaves (None: no limit), a read is the host's turn."""

    def __init__(self):
        self.connected = True
        self.timeout = None
        self.write_timeout = None
        self.room = None
        self.written = bytearray()
        self.incoming = b""

    def write(self, data):
        taken = len(data) if self.room is None else min(self.room, len(data))
        if self.room is not None:
            self.room -= taken
        self.written.extend(data[:taken])
        return taken

    def read(self, size):
        bench.next_step()
        data = self.incoming[:size]
        self.incoming = self.incoming[size:]
        return data


class Bench:
    def __init__(self, scenario):
        self.scenario = scenario
        self.step = 0
        self.now_ms = 0
        self.feeds = 0
        self.calls = []
        self.heap = {}
        self.stopped = None
        self.i2c = FakeI2C(clock=lambda: self.now_ms / 1000)
        tracking = scenario.get("tracking", False)
        self.chips = [self.i2c.attach(address, FakeMPR121(tracking=tracking)) for address in ADDRESSES]
        self.truth = []
        self.marks = []
        for address in scenario["unplugged"]:
            self.i2c.unplug(address)
        self.port = Port()
        self.code = {}  # code.py's globals: the firmware's objects live on in them, as on the board

    def record(self, *call):
        self.calls.append(call)

    def next_step(self):
        """Between two steps: the clock moves on, then the host does what the scenario says."""
        self.step += 1
        self.now_ms += self.scenario["step_ms"]
        if self.step > self.scenario["steps"]:
            raise Stop("the scenario ran out")
        if self.scenario.get("probe"):
            self.move_probes()
        for what, value in self.scenario["at"].get(str(self.step), ()):
            if what == "send":
                self.port.incoming += binascii.unhexlify(value)
            elif what == "touch":
                self.chips[value // PINS].touch(value % PINS)
            elif what == "release":
                self.chips[value // PINS].release(value % PINS)
            elif what == "unplug":
                self.i2c.unplug(value)
            elif what == "plug":
                self.i2c.plug(value)
            elif what == "room":
                self.port.room = value
            elif what == "reset":  # a brown-out: the chip comes back in stop mode, every register at its default
                self.chips[ADDRESSES.index(value)].power_on_reset()
            elif what == "fail":
                self.i2c.fail_one_in(value)
            elif what == "burst":
                self.i2c.fail_for(value / 1000)
            elif what == "hold_sda":
                self.i2c.hold_sda(value)
            else:
                raise ValueError("no such action in a scenario: " + what)


    def move_probes(self):
        """Each chip's finger on electrode 0 or 1, by the step; then note which and what was sent."""
        first = (self.step // self.scenario["probe"]) % 2 == 0
        touched = 0
        for index, chip in enumerate(self.chips):
            for pin in (0, 1):
                pressed = (pin == 0) == first
                chip.set_filtered(pin, chip.untouched - PROBE_COUNTS if pressed else chip.untouched)
                touched |= pressed << (PINS * index + pin)
        self.truth.append(touched)
        self.marks.append(len(self.port.written))


def load():
    global bench
    with open("scenario.json") as file:
        bench = Bench(json.load(file))
    for name in STAND_INS:  # imported now, so the first heap figure holds them
        __import__(name)
    sys.modules["time"] = sys.modules["vtime"]


def measure(name):
    """The heap still in use, after a collection: what the bench, then the firmware, keep."""
    gc.collect()
    bench.heap[name] = gc.mem_alloc()


def run(name):
    """Run ``name`` as CircuitPython does: a script in a namespace of its own, code.py's kept."""
    with open(name) as file:
        source = file.read()
    try:
        exec(source, bench.code if name == "code.py" else {})  # noqa: S102 - running them is the point
    except Stop as stop:
        bench.stopped = stop.args[0]


def report():
    """One JSON line for the test: what the host received, and what the stand-ins saw."""
    import microcontroller
    import supervisor

    board = bench.code["touch_board"]
    print(json.dumps({
        "received": binascii.hexlify(bench.port.written).decode(),
        "steps": bench.step,
        "stopped": bench.stopped,
        "calls": bench.calls,
        "feeds": bench.feeds,
        "autoreload": supervisor.runtime.autoreload,
        "watchdog": [microcontroller.watchdog.timeout, microcontroller.watchdog.mode],
        "port": [bench.port.timeout, bench.port.write_timeout],
        "board": {"frames_sent": board.frames_sent, "frames_dropped": board.frames_dropped,
                  "bad_frames": board.decoder.bad_frames},
        "bus": {"transactions": bench.i2c.transactions, "failed": bench.i2c.failed, "clocks": bench.i2c.clocks,
                "stops": bench.i2c.stops},
        "registers": [{hex(register): chip.registers[register] for register in CHECKED} for chip in bench.chips],
        "truth": bench.truth,
        "marks": bench.marks,
    }))
    bench.port.written = bytearray()


def print_heap():
    print(json.dumps({"heap": bench.heap}))



def measure_import(name):
    """Import ``name`` as code.py does (compiling its source, as the board does), and note the heap
    in use right after with nothing collected meanwhile: this port collects only between scripts,
    so every byte the compile and the module's body took is still counted, at least their peak."""
    __import__(name)
    bench.heap[name + " imported"] = gc.mem_alloc()
