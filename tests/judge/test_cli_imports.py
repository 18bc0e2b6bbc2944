"""`judge --help` (and every command's parser) must not import the store: the commands
import SQLAlchemy, Alembic and the command handlers when they run, so `judge adjudicate` and
`judge --help` start fast."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("sqlalchemy", "alembic", "aiosmtpd", "jinja2", "judge.store", "judge.commands")


def test_building_the_command_line_imports_no_heavy_package() -> None:
    probe = (
        "import sys, judge.cli\n"
        "judge.cli.build_parser()\n"
        f"print(' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_judge_help_still_lists_every_command() -> None:
    from judge.cli import build_parser, command_modules

    text = build_parser().format_help()
    for command in ("serve", "shunt", "db", "adjudicate"):
        assert command in text
    assert len(command_modules()) >= 4
