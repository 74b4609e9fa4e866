"""The touch board tested on the bench, before anything is soldered to the frame: the Pico running
the firmware, its three MPR121 breakouts on four jumper wires, and the board's own report of them.

``python -m pi_table.hardware.tools.bench [--port PATH] [--seconds N]`` finds the board as the
table does (pinout.toml's usb_id, its data port), asks its hello, and prints what the firmware
says: each chip at its address and whether it answers (the firmware tells a chip that does not,
at once and each second), then each electrode as a finger lands on it. It ends once every
electrode of every chip has been touched, or after N seconds, naming what was not heard, and
exits 1 unless every chip answered and every electrode was heard: a dead breakout or a wrong
strap is found here, not after the 36 pad wires are soldered.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from ...drivers.touchboard import find_port
from ...kinds import SerialDevice
from ...protocol import wire
from .. import pinout
from ..pinout import MPR121_ELECTRODES, Pinout

HELLO_S = 3.0
"""How long the board has to say hello after it is asked."""
SETTLE_S = 1.5
"""How long after the hello a chip may be told not answering: the firmware tells each such chip at
its start and again each second."""


class Bench:
    """What the board has said: its hello, the chips it calls silent, the electrodes touched."""

    def __init__(self, wiring: Pinout, say: Callable[[str], object]) -> None:
        self.wiring = wiring
        self.say = say
        self.hello: wire.Hello | None = None
        self.silent: set[int] = set()
        self.heard: set[int] = set()

    def read(self, message: wire.Message) -> None:
        """One message from the board, said as it comes."""
        if isinstance(message, wire.Hello):
            self.hello = message
            self.say(f"touch board {message.board}: firmware {'.'.join(map(str, message.firmware))}, protocol "
                     f"{message.protocol[0]}.{message.protocol[1]}, {message.electrodes} electrodes")
        elif isinstance(message, wire.Log):
            self.say(f"the board says: {message.text}")
        elif isinstance(message, wire.Fault) and message.kind == wire.Fault.NOT_ANSWERING:
            if message.count == wire.CHIP_ANSWERS:
                self.silent.discard(message.chip)
            else:
                self.silent.add(message.chip)
        elif isinstance(message, wire.Touch):
            for electrode in range(MPR121_ELECTRODES * len(self.wiring.chips)):
                if message.mask >> electrode & 1 and electrode not in self.heard:
                    self.heard.add(electrode)
                    chip = self.wiring.chips[electrode // MPR121_ELECTRODES]
                    self.say(f"chip {hex(chip.address)} E{electrode % MPR121_ELECTRODES} (electrode {electrode}): "
                             "touched")

    def chips(self) -> None:
        """Each chip at its address, answering or not, with what to check."""
        for chip in self.wiring.chips:
            last = chip.first_electrode + MPR121_ELECTRODES - 1
            where = f"chip {hex(chip.address)} (ADDR to {chip.addr_to}, electrodes {chip.first_electrode}-{last})"
            self.say(f"{where}: does not answer: check its four wires (3V3, GND, SDA, SCL) and its ADDR strap"
                     if chip.address in self.silent else f"{where}: answers")

    def missing(self) -> list[str]:
        """What was not heard: a chip that does not answer, each answering chip's untouched electrodes."""
        found = []
        for chip in self.wiring.chips:
            if chip.address in self.silent:
                found.append(f"chip {hex(chip.address)} does not answer")
                continue
            untouched = [e - chip.first_electrode for e in range(chip.first_electrode, chip.first_electrode
                                                                   + MPR121_ELECTRODES) if e not in self.heard]
            if untouched:
                found.append(f"chip {hex(chip.address)} E{', E'.join(map(str, untouched))} not touched")
        return found


def run(port: Any, wiring: Pinout, say: Callable[[str], object], seconds: float,
        clock: Callable[[], float] = time.monotonic) -> int:
    """Test the board on ``port`` (a serial port opened with a short read timeout): 0 when every chip
    answered and every electrode was touched within ``seconds``."""
    bench = Bench(wiring, say)
    decoder = wire.Decoder()
    port.write(wire.encode(wire.GetHello(), 0))
    start = clock()

    def read_until(done: Callable[[], bool], until: float) -> None:
        while not done() and clock() < until:
            for _seq, message in decoder.feed(port.read(256) or b""):
                bench.read(message)

    read_until(lambda: bench.hello is not None, start + HELLO_S)
    if bench.hello is None:
        say(f"no hello from the board within {HELLO_S:g} s: is the firmware deployed (firmware/README.md)?")
        return 1
    read_until(lambda: False, clock() + SETTLE_S)
    bench.chips()
    say(f"touch each electrode pad, E0-E11, of each breakout in turn (for {seconds:g} s at most)")
    read_until(lambda: not bench.missing(), start + seconds)
    left = bench.missing()
    say("every chip answers and every electrode was touched" if not left else "not heard: " + "; ".join(left))
    return 1 if left else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", help="the board's data port (default: found by pinout.toml's usb_id)")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long to wait for the touches (default: 120)")
    args = parser.parse_args(argv)
    import serial

    wiring = pinout.load()
    try:
        device = SerialDevice(args.port) if args.port else find_port(
            tuple(int(part, 16) for part in wiring.usb_id.split(":")))  # type: ignore[arg-type]
    except LookupError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
    with serial.Serial(device.target(), timeout=0.05) as port:
        return run(port, wiring, lambda line: print(line, flush=True), args.seconds)


if __name__ == "__main__":
    sys.exit(main())
