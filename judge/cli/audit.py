"""``judge audit ARCHIVE [--judge-key FILE]``: check a game's broadcasts (judge/audit.py)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit", help="check a saved game archive: judge signatures, sealed orders, every phase re-adjudicated",
        description="Check a game's broadcasts as a player saved them (an mbox file, a Maildir, or a folder of "
                    ".eml files) without trusting the judge: its PGP/MIME signatures, each power's commitment "
                    "against its revealed orders (sealed games), and every phase re-adjudicated from the "
                    "published position and orders, compared with the published results and position digests. "
                    "Prints a report per phase; exit status 0 when everything matches, 1 on any discrepancy, "
                    "2 when the audit cannot run.",
    )
    parser.add_argument("archive", metavar="ARCHIVE", help="mbox file, Maildir, or folder of .eml files")
    parser.add_argument("--judge-key", metavar="FILE",
                        help="the judge's public key (armored, from GET KEY); default: the GET KEY reply "
                             "found in the archive")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from judge.audit import AuditError, audit_archive

    try:
        report = audit_archive(args.archive, args.judge_key)
    except (AuditError, OSError) as problem:
        print(f"judge audit: {problem}", file=sys.stderr)
        return 2
    sys.stdout.write(report.text())
    return 0 if report.passed else 1
