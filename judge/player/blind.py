"""``judge player blind add|sub|try``: the arithmetic of the blinded power assignment.

Blind games may assign powers with the protocol of "Randomly Assigning Powers in
Diplomacy": numbers are blinded by adding digit by digit without carry (4+7=1), and each
player finally tries the published blinds on the message the GM dealt it.  These
commands do the sums, so nobody has to do them by hand.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from pathlib import Path
from typing import Sequence

from judge.fair.blind import (
    BlindError,
    MessageFormat,
    add_digits,
    check_digits,
    matching_blind,
    random_digits,
    sub_digits,
    try_blinds,
)
from judge.player.standalone import run_standalone

# Power order of the standard map; other variants publish theirs with the format.
STANDARD_POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")

EXIT_NO_POWER = 1
EXIT_BAD_INPUT = 2


def _fail(text: str) -> int:
    print(f"judge player blind: error: {text}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _check_operands(args: argparse.Namespace) -> None:
    check_digits(args.message, what="MESSAGE")
    if args.blind is not None:
        check_digits(args.blind, len(args.message), what="BLIND")


def _add(args: argparse.Namespace) -> int:
    try:
        _check_operands(args)
        if args.blind is None:
            blind = random_digits(len(args.message), secrets.SystemRandom())
            result = add_digits(args.message, blind)
            print(f"blind:  {blind}   (keep it secret and safe: the witness will ask for it)")
            print(f"result: {result}   (send this to the witness)")
        else:
            print(add_digits(args.message, args.blind))
    except BlindError as error:
        return _fail(str(error))
    return 0


def _sub(args: argparse.Namespace) -> int:
    try:
        _check_operands(args)
        print(sub_digits(args.message, args.blind))
    except BlindError as error:
        return _fail(str(error))
    return 0


def _read_blinds(source: str, length: int) -> list[str]:
    """Every run of exactly ``length`` digits in the file (``-``: standard input)."""
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8", errors="replace")
    return [run for run in re.findall(r"\d+", text) if len(run) == length]


def _try(args: argparse.Namespace) -> int:
    powers = tuple(name.strip().upper() for name in args.powers.split(",") if name.strip())
    try:
        fmt = MessageFormat(args.format.strip().lower(), powers)
    except BlindError as error:
        return _fail(str(error))
    blinds = list(args.blind or [])
    if args.blinds:
        try:
            blinds += _read_blinds(args.blinds, fmt.length)
        except OSError as error:
            return _fail(f"cannot read blinds from {args.blinds!r}: {error.strerror or error}")
    if not blinds:
        return _fail(f"no {fmt.length}-digit blinds given: use --blinds FILE or --blind NUMBER")
    try:
        check_digits(args.message, fmt.length, what="--message")
        power = try_blinds(args.message, blinds, fmt)
    except BlindError as error:
        return _fail(str(error))
    if power is None:
        print(
            f"no power: none of the {len(blinds)} blinds turns {args.message} into the format {fmt.template}; "
            "check the message, the format and the blinds, then tell the GM",
            file=sys.stderr,
        )
        return EXIT_NO_POWER
    blind = matching_blind(args.message, blinds, fmt)
    assert blind is not None
    print(f"{args.message} - {blind} = {sub_digits(args.message, blind)}")
    print(f"power {fmt.powers.index(power)}: {power}")
    return 0


def register_blind(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``blind`` (with ``add``, ``sub``, ``try``) to the ``judge player`` sub-commands."""
    blind = subparsers.add_parser(
        "blind",
        help="digit-wise sums for the blinded power assignment",
        description=(
            "Arithmetic for the blinded power assignment of blind games.  Numbers are strings "
            "of digits of one length; adding and subtracting work digit by digit without "
            "carry or borrow (4+7=1, 1-7=4), so leading zeros matter."
        ),
    )
    actions = blind.add_subparsers(dest="blind_command", metavar="ACTION", required=True)

    add = actions.add_parser(
        "add",
        help="add a blind to a message (or draw a fresh blind)",
        description=(
            "Print MESSAGE + BLIND digit by digit without carry, e.g. 44560464 + 54646487 = 98106841.  "
            "Without BLIND, draw a fresh random blind as long as MESSAGE and print it with the "
            "result: send the result to the witness and keep the blind, which the witness asks "
            "for later."
        ),
    )
    add.add_argument("message", metavar="MESSAGE", help="the digits received, e.g. 98106841")
    add.add_argument("blind", metavar="BLIND", nargs="?", help="your blind, as many digits as MESSAGE")
    add.set_defaults(func=_add)

    sub = actions.add_parser(
        "sub",
        help="subtract a blind from a message",
        description="Print MESSAGE - BLIND digit by digit without borrow, e.g. 75542375 - 54646487 = 21906998.",
    )
    sub.add_argument("message", metavar="MESSAGE")
    sub.add_argument("blind", metavar="BLIND")
    sub.set_defaults(func=_sub)

    attempt = actions.add_parser(
        "try",
        help="find your power: try every published blind on your final message",
        description=(
            "Subtract each published blind from the final message the GM sent you until the "
            "result shows the published format; the digits in the x places are your power's "
            "number (0 = the first power).  Exit status 0 when a power is found, 1 when no "
            "blind fits, 2 on bad input."
        ),
    )
    attempt.add_argument("--message", required=True, metavar="DIGITS", help="the final message the GM sent you")
    attempt.add_argument(
        "--format", required=True, metavar="TEMPLATE",
        help="the format the GM published: verification digits with x where the power number goes, e.g. 4456x464",
    )
    attempt.add_argument(
        "--powers", default=",".join(STANDARD_POWERS), metavar="NAME,NAME,...",
        help="the power order the GM published, numbered from 0 (default: the standard map, %(default)s)",
    )
    attempt.add_argument(
        "--blinds", metavar="FILE",
        help="a file holding the blinds the witness published, e.g. the saved email; every run of "
             "digits as long as the format counts as a blind ('-' reads standard input)",
    )
    attempt.add_argument("--blind", action="append", metavar="DIGITS", help="one published blind (may be repeated)")
    attempt.set_defaults(func=_try)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m judge.player.blind ...``: the same commands without the ``judge player`` prefix."""
    return run_standalone(register_blind, argv)


if __name__ == "__main__":
    sys.exit(main())
