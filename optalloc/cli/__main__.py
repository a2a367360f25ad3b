"""``python -m optalloc.cli``: the ``optalloc`` command."""

import sys

from . import main

sys.exit(main())
