"""`python -m judge.cli`: the `judge` command."""

import sys

from judge.cli import main

sys.exit(main())
