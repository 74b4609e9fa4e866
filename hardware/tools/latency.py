"""The finger-to-light budget: how long from a fingertip on a card to its pending light, stage by
stage, worked out from the settings the firmware runs with (the MPR121's registers in
firmware/touchboard.py, the loop's pause and the I2C clock in firmware/code.py) and the LED line's
length, for the build guide's table. The pending light does not wait for the hold (``game.hold_s``):
the hold decides when a touch becomes a guess, after the light.

The chip samples every electrode once every ESI; its second filter is the average of the last SFI
samples, so a touch whose delta is twice its touch threshold (where ``pi-table tune`` puts the
threshold: halfway between the noise and the peak) crosses the threshold halfway through the
filter, and a touch barely over it only at the end; then the touch debounce asks for that many
more samples in a row.

That reading takes the second filter as a running average that moves with every sample. The
MPR121's datasheet (NXP, the AFE Configuration 2 register) gives SFI as the number of samples the
second filter takes and ESI as the period between them, and calls its output the electrode's
immediate capacitance; it does not say whether that output moves with each sample or once each
block of SFI samples. Read the other way, the chip waits for the block under way to end, needs a
whole block under the finger, and debounces in blocks: ``stages(..., block=True)``. The guide
gives both, and how to tell them apart on the built table.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from pathlib import Path

from ...drivers.settings import SpiLedConfig
from ...firmware import touchboard
from ..pinout import Pinout

CODE = Path(touchboard.__file__).with_name("code.py")
"""The board's glue, whose I2C clock and loop pause are read from it (it imports the board's own
modules, so it is read, not imported)."""
SFI_SAMPLES = (4, 6, 10, 18)
FFI_SAMPLES = (6, 10, 18, 34)
"""The MPR121's second and first filters' sample counts by their two-bit codes (CONFIG2, CONFIG1)."""
STATUS_READ_CLOCKS = 48
"""One chip's touch status read: its address and the register, a repeated start, its address and
the two status bytes (nine clocks a byte), with the start and stop."""
PROBE_CLOCKS = STATUS_READ_CLOCKS - 9
"""The step's probe of one chip's ECR (``touchboard.chip_running``): the same read, of one byte."""
STEP_OVERHEAD_MS = 1.0
"""CircuitPython's own time in a step besides the I2C transfers: a few hundred microseconds for
each of the step's three driver calls, as firmware/README.md reckons (an estimate, not measured on
a Pico)."""
USB_FRAME_MS = 1.0
"""Full-speed USB: the Pi's controller asks the board's endpoint for data once a 1 ms frame."""
HOST_MS = (1.0, 3.0)
"""The Pi, from the report's arrival to the frame handed to the LEDs, typical and at worst: ``pi-table
bench latency`` gives a p50 of 0.5-0.6 ms and a p99 up to 3 ms on the 2-core CI machine; a Pi is
slower (estimates, not measured on a Pi)."""
TARGET_MS = 20
"""The pending light should follow a finger within this, typically: under what a player notices."""
MAINS_HZ = (60, 50)
"""Mains hum's frequencies, whose cycles (17-20 ms) the second filter's span is set against."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What sets the budget: the chip's sample interval, second filter and touch debounce, the
    firmware's loop pause and its I2C clock."""

    esi_ms: float
    sfi: int
    touch_debounce: int
    pause_s: float
    i2c_hz: int


def _registers() -> dict[str, int]:
    """The value the firmware writes to each MPR121 register, by the register's name."""
    return {name: value for name, _register, value in touchboard.CHIP_SETTINGS}


def settings(registers: dict[str, int], pause_s: float, i2c_hz: int) -> Settings:
    """The settings that ``registers`` (CONFIG2 and DEBOUNCE, by name) give the chip, with the loop's
    pause and the I2C clock: CONFIG2's low three bits are ESI (2 to their power, ms), the next two
    SFI's code; DEBOUNCE's low three bits are the touch debounce, in samples."""
    return Settings(esi_ms=2 ** (registers["CONFIG2"] & 0x07), sfi=SFI_SAMPLES[registers["CONFIG2"] >> 3 & 0x03],
                    touch_debounce=registers["DEBOUNCE"] & 0x07, pause_s=pause_s, i2c_hz=i2c_hz)


def firmware() -> Settings:
    """The settings the firmware runs with."""
    constants = {target.id: ast.literal_eval(node.value) for node in ast.parse(CODE.read_text(encoding="utf-8")).body
                 if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)
                 and target.id in ("I2C_HZ", "SCAN_PAUSE_S")}
    return settings(_registers(), constants["SCAN_PAUSE_S"], constants["I2C_HZ"])


def first_filter() -> int:
    """The first filter's samples each reading (CONFIG1's FFI): taken within microseconds, no latency."""
    return FFI_SAMPLES[_registers()["CONFIG1"] >> 6]


def led_frame_ms(wiring: Pinout) -> float:
    """Writing every LED's colour and the latch after it, as the SPI backend sends them: 24 SPI bytes
    an LED and a latch each side; the colours change at the end of the latch."""
    spi = SpiLedConfig()
    latch = math.ceil(spi.speed_hz * spi.latch_us / 8e6)
    return (2 * latch + 24 * wiring.leds) * 8 / spi.speed_hz * 1000


def loop_ms(settings: Settings) -> tuple[float, float]:
    """One step of the board's loop (the three chips' status and one chip's probe on the bus, and
    the step's own work) and its period with the loop's pause, in ms."""
    step = (len(touchboard.ADDRESSES) * STATUS_READ_CLOCKS + PROBE_CLOCKS) / settings.i2c_hz * 1000 + STEP_OVERHEAD_MS
    return step, step + settings.pause_s * 1000


def reset_found_ms(settings: Settings) -> float:
    """The longest a chip a brown-out reset waits to be found: each step probes one chip in turn."""
    return len(touchboard.ADDRESSES) * loop_ms(settings)[1]


def stages(settings: Settings, wiring: Pinout, block: bool = False) -> list[tuple[str, float, float]]:
    """Each stage from the finger to the light: its name, typical and longest time in ms; with
    ``block``, the chip's part read as a second filter that moves once per block of SFI samples."""
    esi = settings.esi_ms
    step, period = loop_ms(settings)
    frame = led_frame_ms(wiring)
    blocks = settings.sfi * esi
    chip = [
        ("the block of samples under way ends", blocks / 2, blocks),
        ("a whole block under the finger", blocks, blocks),
        ("its touch debounce, in blocks", settings.touch_debounce * blocks, settings.touch_debounce * blocks),
    ] if block else [
        ("the chip's next sample of the pad", esi / 2, esi),
        ("its second filter reaches the touch threshold", settings.sfi / 2 * esi, settings.sfi * esi),
        ("its touch debounce", settings.touch_debounce * esi, settings.touch_debounce * esi),
    ]
    return [
        *chip,
        ("the board's loop reads the status and sends the report", (period + step) / 2, period + step),
        ("USB to the Pi", USB_FRAME_MS / 2, USB_FRAME_MS),
        ("the Pi: driver, table loop, LED frame", *HOST_MS),
        (f"the frame down the strip's {wiring.leds} LEDs and the latch", frame, frame),
    ]


def total(settings: Settings, wiring: Pinout, block: bool = False) -> tuple[float, float]:
    found = stages(settings, wiring, block)
    return sum(typical for _, typical, _ in found), sum(longest for _, _, longest in found)


def table(wiring: Pinout) -> str:
    """The budget with the settings the firmware runs with, stage by stage, against ``TARGET_MS``,
    and what those settings cost in noise."""
    now = firmware()

    def ms(value: float) -> str:
        return f"{value:.1f}"

    lines = ["| stage | typical, ms | longest, ms |", "| --- | --- | --- |"]
    lines += [f"| {name} | {ms(typical)} | {ms(longest)} |" for name, typical, longest in stages(now, wiring)]
    typical, longest = total(now, wiring)
    lines.append(f"| **finger to light** | **{ms(typical)}** | {ms(longest)} |")
    block_typical, block_longest = total(now, wiring, block=True)
    lines.append(f"| finger to light, were the second filter to move once per block of {_samples(now.sfi)} | "
                 f"{ms(block_typical)} | {ms(block_longest)} |")
    lines += ["", "| setting | the firmware's |", "| --- | --- |"]
    for name, value in (
        ("sample interval ESI (CONFIG2)", f"{now.esi_ms:g} ms"),
        ("second filter SFI (CONFIG2)", _samples(now.sfi)),
        ("touch debounce (DEBOUNCE)", _samples(now.touch_debounce)),
        ("first filter FFI (CONFIG1)", _samples(first_filter())),
        ("the loop's pause (`SCAN_PAUSE_S`)", f"{now.pause_s * 1000:g} ms"),
        ("I2C clock (`I2C_HZ`)", f"{now.i2c_hz // 1000} kHz"),
    ):
        lines.append(f"| {name} | {value} |")
    verdict = "under" if typical < TARGET_MS else "not under"
    cycles = "-".join(f"{1000 / hz:.0f}" for hz in MAINS_HZ)
    lines += ["", f"The pending light follows a finger in {ms(typical)} ms typically, {verdict} the {TARGET_MS} ms "
              f"aimed at, and in {ms(longest)} ms at the longest. The price is noise: the second filter averages "
              f"{_samples(now.sfi)}, {now.sfi * now.esi_ms:g} ms of signal against mains hum's {cycles} ms a cycle, "
              f"and a touch is reported after {_samples(now.touch_debounce + 1)} in a row over its threshold. Were the "
              f"second filter to move once per block, the light would come {ms(block_typical - typical)} ms later "
              f"typically, {ms(block_longest - longest)} ms at the longest."]
    return "\n".join(lines)


def _samples(count: int) -> str:
    return f"{count} sample" + ("" if count == 1 else "s")
