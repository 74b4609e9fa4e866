"""The touch board's firmware (CircuitPython on an RP2040), importable on the host as
``pi_table.firmware`` so that tests and the board emulator run the very same logic.
This file is not copied to the board."""
