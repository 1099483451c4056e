"""``python -m edgedp.cli``: the ``edgedp`` command."""

import sys

from edgedp.console import main

sys.exit(main())
