"""The daemon: the table as a service, with its control socket and systemd's notify protocol."""
