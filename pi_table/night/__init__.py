"""A game night: a café's league across its tables (issue 32). Teams without accounts
(``names``), the games they play (``games``), Swiss pairings (``pairing``), the standings
(``standings``, with openskill) and the night's book on disk (``book``). Pure but for the book's
file: the daemon records the table's games into it, the staff page runs it, the fleet gathers
its games. Its modules are imported by name: the configuration reads a blocklist at every start
and loads nothing else of the night's (nor openskill) for it.
"""
