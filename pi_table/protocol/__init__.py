"""The touch board's serial protocol. CircuitPython imports this package too: keep it plain."""
