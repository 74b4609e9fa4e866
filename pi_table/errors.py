"""The root of every error the table raises on purpose, as gpiozero has ``GPIOZeroError``.

``except PiTableError`` catches what the table itself refuses or reports (a refused action, a
bad configuration, a control socket that does not answer...) and nothing of Python's or a
library's own. Each error also keeps the built-in base that says what kind of mistake it is
(``ValueError`` for a refused value, ``RuntimeError`` for a service that does not answer), so
code that catches those still catches it. Below every layer: it imports nothing.
"""


class PiTableError(Exception):
    """An error raised by pi-table itself."""
