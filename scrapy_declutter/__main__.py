"""``python -m scrapy_declutter``: the same command line as ``scrapy-declutter`` (``cli``)."""

import sys

from .cli import main

sys.exit(main())
