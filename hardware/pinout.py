"""The reference wiring, read from ``pinout.toml`` beside this file, and the rules it must keep.

This folder is mapped into the package as ``pi_table.hardware`` (as firmware/ is) so that an
installed table reads the same file its build guide was made from.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..engine import CELLS

HEADER = {
    2: (3, "I2C1 SDA"), 3: (5, "I2C1 SCL"), 4: (7, "GPCLK0"), 5: (29, ""), 6: (31, ""), 7: (26, "SPI0 CE1"),
    8: (24, "SPI0 CE0"), 9: (21, "SPI0 MISO"), 10: (19, "SPI0 MOSI"), 11: (23, "SPI0 SCLK"), 12: (32, "PWM0"),
    13: (33, "PWM1"), 14: (8, "UART TX"), 15: (10, "UART RX"), 16: (36, ""), 17: (11, ""), 18: (12, "PWM0"),
    19: (35, "PWM1"), 20: (38, "PCM DIN"), 21: (40, "PCM DOUT"), 22: (15, ""), 23: (16, ""), 24: (18, ""),
    25: (22, ""), 26: (37, ""), 27: (13, ""),
}
"""BCM GPIO on the 40-pin header: its physical pin and the function that matters here."""
LED_DATA = {10: "SPI0 MOSI", 12: "PWM0", 18: "PWM0", 13: "PWM1", 19: "PWM1", 21: "PCM DOUT"}
"""Where a WS2812B data line can be driven from: SPI's MOSI, a PWM channel, or PCM."""
I2S = {"bclk": 18, "lrclk": 19, "din": 21}
"""The Pi's PCM/I2S pins an I2S amplifier takes (bit clock, frame clock, data out): fixed, the
only place the kernel's max98357a overlay can put them."""
HEADER_5V = (2, 4)
"""The 40-pin header's 5 V pins, straight from the Pi's supply."""
DISPLAY_5V = 4
"""The display's power cable takes this 5 V pin; the amplifier takes the other."""
SPI0 = (7, 8, 9, 10, 11)
"""The pins the kernel's SPI0 driver takes once SPI is on, as it must be for the LEDs on GPIO 10."""
MPR121_ADDRESS = {"GND": 0x5A, "3V3": 0x5B, "SDA": 0x5C, "SCL": 0x5D}
"""The MPR121's address is set by what its ADDR pin is tied to."""
MPR121_ELECTRODES = 12
PICO_I2C = {
    0: ({"GP0", "GP4", "GP8", "GP12", "GP16", "GP20"}, {"GP1", "GP5", "GP9", "GP13", "GP17", "GP21"}),
    1: ({"GP2", "GP6", "GP10", "GP14", "GP18", "GP26"}, {"GP3", "GP7", "GP11", "GP15", "GP19", "GP27"}),
}
"""The RP2040's I2C buses: (SDA pins, SCL pins) of each."""
PICO_PINS = {1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND", 9: "GP6", 10: "GP7",
             11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11", 16: "GP12", 17: "GP13", 18: "GND", 19: "GP14",
             20: "GP15", 21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND",
             29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "GND", 34: "GP28", 35: "ADC_VREF", 36: "3V3(OUT)",
             37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS"}
"""The Raspberry Pi Pico's 40 pins, as its datasheet numbers them (pin 33 is AGND, a ground): the
wiring diagram and the stripboard place a GP name of the pinout on its pin from here."""


def pico_pin(name: str) -> int:
    """The Pico's pin (1-40) that a GP name of the pinout is on: "GP4" is pin 6."""
    found = [pin for pin, label in PICO_PINS.items() if label == name]
    if len(found) != 1:
        raise ValueError(f"{name!r} is not one of the Pico's GP pins (GP0-GP22, GP26-GP28)")
    return found[0]
BUTTONS = ("end_turn", "new_game", "encoder_a", "encoder_b", "encoder_push")
HEADER_GROUNDS = (6, 9, 14, 20, 25, 30, 34, 39)
"""The 40-pin header's ground pins."""
GROUNDED = ("led_data", *BUTTONS, "display", "amp")
"""What takes a ground pin of the Pi's header: the LED data line's shifter, each button, the
display, the amplifier."""


@dataclass(frozen=True, slots=True)
class Chip:
    """One MPR121 on the touch board: its I2C address, where ADDR is tied, and its first electrode's cell."""

    address: int
    addr_to: str
    first_electrode: int


@dataclass(frozen=True, slots=True)
class Pinout:
    """The reference wiring as pinout.toml gives it: the table reads the same file its build guide was made from."""

    led_data: int
    buttons: dict[str, int]
    encoder_fitted: bool
    usb_id: str
    sda: str
    scl: str
    maintenance_pin: str  # grounded at boot: the CIRCUITPY drive and auto-reload stay on
    i2c_hz: int
    chips: tuple[Chip, ...]
    cell_electrodes: tuple[int, ...]
    end_turn_electrodes: tuple[int, ...]
    leds_per_cell: int
    serpentine: bool
    edge_leds: int
    strip_per_metre: int
    strip_reel_m: float
    led_supply_ma: int
    led_supply_margin: float
    grounds: dict[str, int]
    fuse_ma: int
    amp_fitted: bool
    amp_pins: dict[str, int]  # its I2S signals' GPIOs: bclk, lrclk, din
    amp_vin_pin: int  # the header's 5 V pin it takes
    amp_peak_ma: int
    pi_supply_ma: int
    pi_loads_ma: dict[str, int]  # what else the Pi's supply feeds, estimated: the Pi, the display, the Pico

    def fitted_grounds(self) -> dict[str, int]:
        """The header's ground pin of each thing fitted: the encoder's and the amplifier's only when they are."""
        return {name: pin for name, pin in self.grounds.items()
                if (self.encoder_fitted or not name.startswith("encoder")) and (self.amp_fitted or name != "amp")}

    @property
    def pi_supply_load_ma(self) -> int:
        """The most the Pi's own supply is asked for: the Pi, its display and touch board, the amplifier."""
        return sum(self.pi_loads_ma.values()) + (self.amp_peak_ma if self.amp_fitted else 0)

    @property
    def electrodes(self) -> int:
        return MPR121_ELECTRODES * len(self.chips)

    @property
    def leds(self) -> int:
        return CELLS * self.leds_per_cell + self.edge_leds

    @property
    def strip_m(self) -> float:
        """Metres of strip the LEDs take, cut into rows and the edge."""
        return self.leds / self.strip_per_metre

    @property
    def current_limit_ma(self) -> int:
        """What the daemon lets the LEDs draw: the supply's rating less the margin."""
        return round(self.led_supply_ma * (1 - self.led_supply_margin))

    def problems(self) -> list[str]:
        """Every rule of the wiring this pinout breaks, in words; empty when it is sound."""
        found = []
        if self.led_data not in LED_DATA:
            found.append(f"the LED data line is on GPIO {self.led_data}, which cannot drive WS2812B: use one of "
                         + ", ".join(f"{pin} ({what})" for pin, what in LED_DATA.items()))
        used: dict[int, str] = {self.led_data: "the LED data line"}
        if self.led_data in SPI0:
            used.update({pin: "SPI0" for pin in SPI0 if pin != self.led_data})
        if self.amp_fitted:
            found += self._amp_problems()
            for signal, pin in self.amp_pins.items():
                used.setdefault(pin, f"the amplifier's {signal.upper()}")
        for name, pin in self.buttons.items():
            if pin not in HEADER:
                found.append(f"{name} is on GPIO {pin}, which is not on the 40-pin header (GPIO 2-27)")
            elif pin in used:
                found.append(f"{name} and {used[pin]} are both on GPIO {pin}")
            used.setdefault(pin, name)
        sda_bus = next((bus for bus, (sdas, _) in PICO_I2C.items() if self.sda in sdas), None)
        scl_bus = next((bus for bus, (_, scls) in PICO_I2C.items() if self.scl in scls), None)
        if sda_bus is None or scl_bus is None or sda_bus != scl_bus:
            found.append(f"the Pico's SDA {self.sda} and SCL {self.scl} are not the SDA and SCL of one I2C bus")
        if self.maintenance_pin not in PICO_PINS.values() or not self.maintenance_pin.startswith("GP"):
            found.append(f"the maintenance pin {self.maintenance_pin} is not one of the Pico's GP pins")
        elif self.maintenance_pin in (self.sda, self.scl):
            found.append(f"the maintenance pin {self.maintenance_pin} is also the I2C bus's")
        addresses = [chip.address for chip in self.chips]
        if len(set(addresses)) != len(addresses):
            found.append(f"two MPR121s share an address: {', '.join(hex(a) for a in addresses)}")
        for number, chip in enumerate(self.chips):
            if MPR121_ADDRESS.get(chip.addr_to) != chip.address:
                found.append(f"MPR121 {hex(chip.address)} has ADDR tied to {chip.addr_to}, which gives "
                             f"{hex(MPR121_ADDRESS[chip.addr_to]) if chip.addr_to in MPR121_ADDRESS else 'no address'}")
            if chip.first_electrode != number * MPR121_ELECTRODES:
                found.append(f"MPR121 {hex(chip.address)} starts at electrode {chip.first_electrode}, "
                             f"expected {number * MPR121_ELECTRODES} (12 electrodes a chip, in order)")
        if len(self.cell_electrodes) != CELLS:
            found.append(f"cells list {len(self.cell_electrodes)} electrodes, the grid has {CELLS} cells")
        taken: dict[int, str] = {}
        places = [(f"cell {cell}", e) for cell, e in enumerate(self.cell_electrodes)]
        places += [("an END TURN pad", e) for e in self.end_turn_electrodes]
        for place, electrode in places:
            if not 0 <= electrode < self.electrodes:
                found.append(f"{place} is on electrode {electrode}; the chips have 0 to {self.electrodes - 1}")
            elif electrode in taken:
                found.append(f"{taken[electrode]} and {place} are both on electrode {electrode}")
            taken.setdefault(electrode, place)
        if self.leds_per_cell < 1:
            found.append(f"every cell needs at least one LED, not {self.leds_per_cell}")
        if self.strip_m > self.strip_reel_m:
            found.append(f"{self.leds} LEDs take {self.strip_m:.2f} m of strip, more than the {self.strip_reel_m} m reel")
        missing = [name for name in GROUNDED if name not in self.grounds]
        if missing and (self.amp_fitted or missing != ["amp"]):
            found.append(f"no ground pin for {', '.join(missing)}: each takes one of the header's {HEADER_GROUNDS}")
        taken_grounds: dict[int, str] = {}
        for name, pin in self.fitted_grounds().items():
            if pin not in HEADER_GROUNDS:
                found.append(f"{name}'s ground is on header pin {pin}, which is not a ground pin "
                             f"({', '.join(map(str, HEADER_GROUNDS))})")
            elif pin in taken_grounds:
                found.append(f"{taken_grounds[pin]} and {name} share ground pin {pin}: give each its own")
            taken_grounds.setdefault(pin, name)
        if not self.led_supply_ma < self.fuse_ma:
            found.append(f"the {self.fuse_ma / 1000:g} A fuse would blow at the supply's rated "
                         f"{self.led_supply_ma / 1000:g} A: choose one above it")
        if not 0 <= self.led_supply_margin < 1:
            found.append(f"the supply margin is a fraction 0 to below 1, not {self.led_supply_margin}")
        if self.pi_supply_load_ma > self.pi_supply_ma:
            found.append(f"the Pi's supply gives {self.pi_supply_ma / 1000:g} A; the Pi, display, touch board and "
                         f"amplifier may ask {self.pi_supply_load_ma / 1000:.2f} A: use a bigger supply")
        return found

    def _amp_problems(self) -> list[str]:
        """The amplifier on the Pi's I2S pins, a 5 V pin of its own, and no LED PWM beside it."""
        found = [f"the amplifier's {signal.upper()} is on GPIO {self.amp_pins.get(signal)}; I2S puts it on GPIO {pin} "
                 f"(header pin {HEADER[pin][0]})" for signal, pin in I2S.items() if self.amp_pins.get(signal) != pin]
        if LED_DATA.get(self.led_data, "").startswith(("PWM", "PCM")):
            found.append(f"the LED data line is on GPIO {self.led_data} ({LED_DATA[self.led_data]}) and the I2S amplifier "
                         "is fitted: rpi-ws281x's PWM and PCM modes take the hardware the Pi's audio needs; "
                         "keep the LEDs on GPIO 10 (SPI)")
        if self.amp_vin_pin not in HEADER_5V or self.amp_vin_pin == DISPLAY_5V:
            found.append(f"the amplifier's VIN is on header pin {self.amp_vin_pin}; it takes the 5 V pin the display "
                         f"does not: {', '.join(str(p) for p in HEADER_5V if p != DISPLAY_5V)}")
        return found


def load(text: str | None = None) -> Pinout:
    """The pinout in ``text`` (TOML), by default the reference one beside this module."""
    if text is None:
        # beside this file, as the package installs it (importlib.resources would cost the
        # daemon's start 5 ms for the same path)
        text = Path(__file__).with_name("pinout.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    pi, board, cells, leds, power = data["pi"], data["touch_board"], data["cells"], data["leds"], data["power"]
    amp = data["amp"]
    return Pinout(
        led_data=pi["led_data"],
        buttons={name: pi[name] for name in BUTTONS},
        encoder_fitted=pi["encoder_fitted"],
        usb_id=board["usb_id"],
        sda=board["sda"],
        scl=board["scl"],
        maintenance_pin=board["maintenance_pin"],
        i2c_hz=board["i2c_hz"],
        chips=tuple(Chip(c["address"], c["addr_to"], c["first_electrode"]) for c in board["mpr121"]),
        cell_electrodes=tuple(cells["electrodes"]),
        end_turn_electrodes=tuple(cells["end_turn_electrodes"]),
        leds_per_cell=leds["leds_per_cell"],
        serpentine=leds["serpentine"],
        edge_leds=leds["edge_leds"],
        strip_per_metre=leds["strip_per_metre"],
        strip_reel_m=leds["strip_reel_m"],
        led_supply_ma=power["led_supply_ma"],
        led_supply_margin=power["margin"],
        grounds=dict(pi["grounds"]),
        fuse_ma=power["fuse_ma"],
        amp_fitted=amp["fitted"],
        amp_pins={signal: amp[signal] for signal in I2S},
        amp_vin_pin=amp["vin_pin"],
        amp_peak_ma=amp["peak_ma"],
        pi_supply_ma=power["pi_supply_ma"],
        pi_loads_ma=dict(power["pi_loads_ma"]),
    )
