"""``python -m pi_table``: the same as the ``pi-table`` command."""

import sys

from .cli import main

sys.exit(main())
