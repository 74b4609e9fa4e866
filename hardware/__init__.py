"""The build files of the table; ``pinout`` reads the wiring that the configuration starts from,
and is all of this folder an installed table carries (the build tools are in ``tools``)."""
