"""The fleet's dashboard on this table, on the staff page (issue 50, 3): the owner turns it on (a
port, the broker's user it reads as, that user's password) or off, as one of the owner's files
(``POST /staff/api/files/dashboard``, the files section's route), and the table restarts to try
it. A section of words and a script alone: ``daemon.fleet_dashboard`` shows the dashboard.
"""

from __future__ import annotations

from ...engine.phrase import N_
from ..staff import Section

TEXTS: tuple[str, ...] = (
    N_("Fleet dashboard"),
    N_("Its port (0: not on this table)"),
    N_("The broker's user it reads as"),
    N_("That user's broker password (empty: keep the one set)"),
    N_("Save the dashboard"),
    N_("Set the fleet broker first: the dashboard reads every table from it."),
    N_("This table shows the café's dashboard; log in there with the owner's passphrase."),
    N_("This table does not show the café's dashboard."),
)


class DashboardSection(Section[object], name="dashboard", script="dashboard.js", texts=TEXTS):
    """The dashboard's form; it takes nothing of the table."""
