"""Runs once at power-on or reset, before code.py: open the second USB serial port, and in
service close what a host could use to change or stop the firmware under the running table.

The Pi talks frames on the data port (usb_cdc.data). In service that is the only port: the
CircuitPython console (REPL, tracebacks, print) is off, since a Ctrl-C there (a maker's `screen`,
Thonny or mpremote on the first port) raises KeyboardInterrupt in code.py, the one exception that
disarms the watchdog, and the pads would stay deaf until the board is replugged. The CIRCUITPY
drive is hidden from the host and auto-reload is off too: a write to the drive (a file manager, a
backup tool on the Pi) would otherwise reload code.py, and a reload disarms the watchdog. To
update the firmware or reach the console, hold the maintenance pin to ground while the board
starts (a jumper from GP22, pin 29, to GND, pin 28: hardware/pinout.toml's maintenance_pin),
copy, remove the jumper and reset. A change here takes effect only after a reset, not on a
code.py reload.
"""

import board
import digitalio
import storage
import supervisor
import usb_cdc

MAINTENANCE_PIN = "GP22"  # Pico pin 29, beside GND on pin 28: one jumper grounds it

pin = digitalio.DigitalInOut(getattr(board, MAINTENANCE_PIN))
pin.switch_to_input(pull=digitalio.Pull.UP)
maintenance = not pin.value  # grounded
pin.deinit()

usb_cdc.enable(console=maintenance, data=True)

if not maintenance:
    storage.disable_usb_drive()
    if hasattr(supervisor, "runtime") and hasattr(supervisor.runtime, "autoreload"):
        supervisor.runtime.autoreload = False  # CircuitPython 8 and later
    else:
        supervisor.disable_autoreload()
