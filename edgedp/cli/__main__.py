"""``python -m edgedp.cli``: the ``edgedp`` command."""

import sys

from edgedp.cli import main

sys.exit(main())
