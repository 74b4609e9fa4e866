"""The root of every error the table raises on purpose, and of every warning it gives, as gpiozero
has ``GPIOZeroError`` and ``GPIOZeroWarning``.

``except PiTableError`` catches what the table itself refuses or reports (a refused action, a
bad configuration, a control socket that does not answer...) and nothing of Python's or a
library's own. Each error also keeps the built-in base that says what kind of mistake it is
(``ValueError`` for a refused value, ``RuntimeError`` for a service that does not answer), so
code that catches those still catches it. ``PiTableWarning`` does the same for warnings: a
filter (``-W error::pi_table.errors.PiTableWarning``) picks out the table's own and no library's.
Below every layer: it imports nothing.
"""


class PiTableError(Exception):
    """An error raised by pi-table itself."""


class PiTableWarning(Warning):
    """A warning given by pi-table itself (its tests' and tools' included)."""
