"""``python -m judge.commands.help_docs [ROOT]``: write the documents made from the verbs --
mailcmds/help.txt and the generated blocks of mailcmds/grammar.md and README.md
(tests/mailcmds/test_docs.py fails until they are what the verbs make)."""

from __future__ import annotations

import sys
from pathlib import Path

from judge.commands.registry import STATUS_VERBS, VERB_TABLE
from mailcmds import help_page


def main(argv: list[str]) -> None:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    help_page.write_all(root, VERB_TABLE, STATUS_VERBS)


if __name__ == "__main__":
    main(sys.argv[1:])
