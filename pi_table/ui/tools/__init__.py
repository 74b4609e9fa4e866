"""The checkout's tools for the table's pictures: the colour-vision check of the palettes and its
pictures in docs/colour-vision/. They need the test extra's analysis libraries (numpy,
colorspacious) and run from a checkout only (``python -m pi_table.ui.tools.colour_vision``);
pyproject.toml leaves this folder out of the package, as hardware/tools/, so a Pi never installs
them (tests/test_shipped.py)."""
