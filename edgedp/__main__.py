"""``python -m edgedp``: the ``edgedp`` command (:mod:`edgedp.console`)."""

import sys

from edgedp.console import main

sys.exit(main())
