"""``python -m gencl``: the CLI without the console script (e.g. PYTHONPATH installs)."""

import sys

from gencl.cli import main

sys.exit(main())
