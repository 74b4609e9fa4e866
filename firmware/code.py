"""Touch board glue: build the hardware objects and run TouchBoard (touchboard.py holds the logic).

Wiring on a Raspberry Pi Pico (RP2040), one I2C bus at 100 kHz:
    SDA = GP4 (pin 6), SCL = GP5 (pin 7), 3V3(OUT) (pin 36) and GND (pin 38) to all three MPR121s
    MPR121 ADDR to GND -> 0x5A, electrodes 0-11
    MPR121 ADDR to 3V3 -> 0x5B, electrodes 12-23
    MPR121 ADDR to SDA -> 0x5C, electrodes 24-35
The breakouts' own pull-ups serve the bus; IRQ is not used. When a chip holds SDA low, the bus
is given up for a moment and GP5 and GP4 clock it free as plain pins (touchboard.Bus).

The watchdog is armed first: in RESET mode CircuitPython keeps it running when code.py dies of an
exception, so a hang or a crash anywhere below restarts the board within 2 s. Ctrl-C at the
console and an auto-reload after a file copy disarm it; in service boot.py hides the drive and
turns auto-reload off, so only a maintenance start (GP22 grounded) can do the latter.
"""

import binascii
import time

import adafruit_mpr121
import board
import busio
import digitalio
import microcontroller
import supervisor
import usb_cdc
from watchdog import WatchDogMode

import touchboard

# 100 kHz, not 400: the bus's capacitance (the I2C cable from the box to the frame and the wires
# on it, worked out from the cable's data sheet in the build guide, "The I2C bus: why 100 kHz")
# is more than the breakouts' pull-ups can raise within Fast-mode's 300 ns rise time, and within
# Standard-mode's 1000 ns (hardware/pinout.toml's i2c_hz, which a test holds this to). The price
# is about 1.5 ms more per scan of three chips: no latency anyone can see.
I2C_HZ = 100000
WATCHDOG_S = 2.0
# The loop's pause, one chip sample (ESI 2 ms in touchboard.CHIP_SETTINGS): a step takes about 2-4 ms
# at 100 kHz, so the loop runs at roughly 170-250 Hz and a touch waits about 3 ms on average for the
# read that reports it (hardware/tools/latency.py); no pause at all would save only a millisecond more.
SCAN_PAUSE_S = 0.002
REPLY_DRAIN_S = 0.1  # time for the reset command's ack to leave the USB buffer

microcontroller.watchdog.timeout = WATCHDOG_S
microcontroller.watchdog.mode = WatchDogMode.RESET

port = usb_cdc.data
if port is None:
    # the watchdog restarts the board
    raise RuntimeError("no USB data port: boot.py has not run since it was copied; the watchdog resets")
port.timeout = 0  # read returns at once with what is there
port.write_timeout = 0  # write never waits for a host that has gone; TouchBoard finishes a frame cut short


def open_i2c():
    """The bus; RuntimeError when a line reads low: no pull-ups (no breakout connected), or a chip holding SDA."""
    return busio.I2C(board.GP5, board.GP4, frequency=I2C_HZ)


def open_lines():
    """SCL and SDA as plain pins, for a bus clear while the bus is given up."""
    return digitalio.DigitalInOut(board.GP5), digitalio.DigitalInOut(board.GP4)


bus = touchboard.Bus(open_i2c, open_lines)
if bus.problem:
    print("I2C:", bus.problem)


def clock():
    """Seconds on a 65.536 s wrapping scale. CircuitPython floats carry about 22 bits, so
    time.monotonic() after a week of uptime moves in steps of a quarter second; small numbers keep
    millisecond steps, and TouchBoard treats the wrap as a due heartbeat."""
    return (supervisor.ticks_ms() & 0xFFFF) / 1000


def restart():
    time.sleep(REPLY_DRAIN_S)
    microcontroller.reset()


def connect(address):
    """The driver object of a chip missing at start, as TouchBoard tries it again (every RETRY_S)."""
    return touchboard.connect_chip(bus, adafruit_mpr121.MPR121, address)


touch_board = touchboard.TouchBoard(
    touchboard.connect_chips(bus, adafruit_mpr121.MPR121),
    port,
    clock,
    binascii.hexlify(microcontroller.cpu.uid).decode(),
    feed_watchdog=microcontroller.watchdog.feed,
    reset=restart,
    restart_cause=str(microcontroller.cpu.reset_reason).split(".")[-1],
    connect=connect,
    bus=bus,
)
touch_board.start()
while True:
    touch_board.step()
    time.sleep(SCAN_PAUSE_S)
