"""The build files of the table; ``pinout`` reads the wiring that the configuration starts from."""
