"""The fleet: a table's reports to an MQTT broker, and the dashboard that shows every table
reporting to one (off unless ``[fleet]`` names a broker). The topics are DESIGN.md's MQTT
contract: ``pi-table/<table_id>/status``, ``online``, ``events`` and ``command``."""
