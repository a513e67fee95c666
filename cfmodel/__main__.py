"""``python -m cfmodel``: the same as the ``cfmodel`` command."""

import sys

from cfmodel.cli import main

sys.exit(main())
