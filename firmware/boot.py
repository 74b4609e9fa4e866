"""Runs once at power-on or reset, before code.py: open the second USB serial port.

The console (REPL, tracebacks, print) stays on the first port; the Pi talks frames on the data
port (usb_cdc.data). A change here takes effect only after a reset, not on a code.py reload.
"""

import usb_cdc

usb_cdc.enable(console=True, data=True)
