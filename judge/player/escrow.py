"""``judge player escrow build|peel|inspect``: the last-number escrow with the player's own gpg.

``build`` is run by the player who reveals last: it writes the number file M, the
commitment S(M), and the nested escrow S(E(S(E(...)))) to publish with the commitment.
``peel`` is run by a player asked to open a layer: it checks the escrowing player's
signature, decrypts the layer with the player's key and writes what to publish next.
``inspect`` shows who signed a layer and who can open it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from judge.crypto.commitments import CommitmentFormatError, read_number
from judge.crypto.escrow import (
    REFERENCE_LAYERS,
    EscrowError,
    build_escrow,
    describe_plan,
    number_file,
    parse_layers,
    peel_layer,
    peel_step,
)
from judge.crypto.gpg import GpgError, Keyring
from judge.player.standalone import run_standalone

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _fail(text: str, code: int = EXIT_BAD_INPUT) -> int:
    print(f"judge player escrow: error: {text}", file=sys.stderr)
    return code


def _home(args: argparse.Namespace) -> str:
    return args.gnupghome or os.environ.get("GNUPGHOME") or str(Path.home() / ".gnupg")


def _passphrase(args: argparse.Namespace) -> str | None:
    if not args.passphrase_env:
        return None
    value = os.environ.get(args.passphrase_env)
    if value is None:
        raise EscrowError(f"environment variable {args.passphrase_env} is not set")
    return value


def _read_input(source: str) -> bytes:
    return sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()


def _write_output(target: str, data: bytes) -> None:
    if target == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        Path(target).write_bytes(data)


def _build(args: argparse.Namespace) -> int:
    try:
        if args.number < 0 or (args.outcomes is not None and args.number >= args.outcomes):
            limit = f"0..{args.outcomes - 1}" if args.outcomes else "0 or more"
            raise EscrowError(f"--number {args.number} is outside {limit}")
        secret = number_file(args.number)
        if args.outcomes is not None:
            read_number(secret, args.outcomes)
        stages = parse_layers(args.layers)
        with Keyring(_home(args)) as ring:
            built = build_escrow(ring, secret, args.signer, stages, passphrase=_passphrase(args))
            names = [[ring.user_id(f) for f in stage] for stage in built.stages]
    except (EscrowError, GpgError, CommitmentFormatError, ValueError) as exc:
        return _fail(str(exc))
    prefix = Path(args.prefix)
    files = {
        "number file M (reveal it later)": (prefix.with_name(prefix.name + ".txt"), built.number_file),
        "commitment S(M) (send with COMMIT)": (prefix.with_name(prefix.name + ".asc"), built.commitment),
        "escrow (publish with the commitment)": (prefix.with_name(prefix.name + "-escrow.asc"), built.escrow.encode()),
        "plan (publish with the escrow)": (
            prefix.with_name(prefix.name + "-plan.txt"), (describe_plan(built.stages) + "\n").encode()
        ),
    }
    for path, data in files.values():
        path.write_bytes(data)
    for what, (path, _) in files.items():
        print(f"{what}: {path}")
    print("layers, to be opened in this order:")
    for number, stage in enumerate(reversed(names), start=1):
        print(f"  layer {number}: " + " or ".join(stage))
    return 0


def _peel(args: argparse.Namespace) -> int:
    try:
        layer = _read_input(args.input)
        with Keyring(_home(args)) as ring:
            escrower = ring.resolve(args.escrower) if args.escrower else None
            peeled = peel_layer(ring, layer, escrower, passphrase=_passphrase(args))
    except OSError as exc:
        return _fail(f"cannot read {args.input}: {exc.strerror}")
    except (EscrowError, GpgError, ValueError) as exc:
        return _fail(str(exc), EXIT_FAILED)
    _write_output(args.output, peeled.publishable().encode("utf-8"))
    print(f"layer checked: {peeled.signature.reason}", file=sys.stderr)
    if peeled.is_layer:
        print("this was not the last layer: publish the output (the next layer) as asked", file=sys.stderr)
    else:
        print("this was the innermost layer: the output is the escrowed number file; publish it",
              file=sys.stderr)
    if escrower is None:
        print("warning: without --escrower, any valid signature was accepted; check that the "
              "signer above is the escrowing player", file=sys.stderr)
    return 0


def _inspect(args: argparse.Namespace) -> int:
    try:
        layer = _read_input(args.input)
        with Keyring(_home(args)) as ring:
            escrower = ring.resolve(args.escrower)
            step = peel_step(ring, layer, escrower)
            names = [ring.user_id(r) if len(r) == 40 else f"unknown key {r}" for r in step.recipients]
    except OSError as exc:
        return _fail(f"cannot read {args.input}: {exc.strerror}")
    except (EscrowError, GpgError, ValueError) as exc:
        return _fail(str(exc), EXIT_FAILED)
    print(f"signature: {step.signature.reason}")
    print("can be opened by: " + " or ".join(names))
    return 0


def register_escrow(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``escrow`` (with ``build``, ``peel``, ``inspect``) to the ``judge player`` sub-commands."""
    escrow = subparsers.add_parser(
        "escrow",
        help="the last-number escrow: build it, or open a layer addressed to you",
        description=(
            "The last-number escrow of fair lotteries: the player who reveals last publishes "
            "the number wrapped in layers, each encrypted to other players and signed, so the "
            "others can recover it if that player vanishes.  Uses your own gpg keyring."
        ),
    )
    actions = escrow.add_subparsers(dest="escrow_command", metavar="ACTION", required=True)

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--gnupghome", metavar="DIR",
                            help="your GnuPG home (default: $GNUPGHOME, else ~/.gnupg)")
        parser.add_argument("--passphrase-env", metavar="VAR",
                            help="read your key's passphrase from this environment variable")

    build = actions.add_parser(
        "build",
        help="write the number file, its commitment and the nested escrow",
        description=(
            "Wrap your number in signed, encrypted layers.  --layers lists the stages in the "
            "order they are built, innermost first, separated by ';'; the recipients of a "
            "stage by ',' or '+' (keep ',' between addresses that contain '+').  The "
            f"reference's sequence for players B..G is {REFERENCE_LAYERS!r}: first to B,C,D,E, "
            "then F+G, E+F, D+E, C+B and B+G, signing each stage.  Writes PREFIX.txt (the "
            "number file), PREFIX.asc (its detached signature: your commitment), "
            "PREFIX-escrow.asc and PREFIX-plan.txt (publish both with the commitment)."
        ),
    )
    common(build)
    build.add_argument("--number", type=int, required=True, metavar="N", help="your number")
    build.add_argument("--outcomes", type=int, metavar="K", help="the lottery's number of outcomes (checks 0 <= N < K)")
    build.add_argument("--signer", required=True, metavar="KEY", help="your own key (address or fingerprint)")
    build.add_argument("--layers", required=True, metavar="SPEC",
                       help="stages innermost first, e.g. 'b@x,c@x,d@x,e@x;f@x,g@x;e@x,f@x;d@x,e@x;c@x,b@x;b@x,g@x'")
    build.add_argument("--prefix", default="number", metavar="PATH", help="where to write the files (default: %(default)s)")
    build.set_defaults(func=_build)

    peel = actions.add_parser(
        "peel",
        help="open the escrow layer addressed to you and write the next one",
        description=(
            "Check the escrowing player's signature on the layer, decrypt it with your key, "
            "and write what you must publish: the next layer (armored), or for the innermost "
            "layer the number file itself.  Exit status 1 if the layer is not genuine or not "
            "addressed to you."
        ),
    )
    common(peel)
    peel.add_argument("--escrower", metavar="KEY", help="the escrowing player's key (address or fingerprint); strongly advised")
    peel.add_argument("--in", dest="input", default="-", metavar="FILE", help="the layer (default: standard input)")
    peel.add_argument("--out", dest="output", default="-", metavar="FILE", help="where to write (default: standard output)")
    peel.set_defaults(func=_peel)

    inspect = actions.add_parser(
        "inspect",
        help="check who signed a layer and who can open it",
        description="Check the escrowing player's signature on a layer and list who can open it.",
    )
    common(inspect)
    inspect.add_argument("--escrower", required=True, metavar="KEY", help="the escrowing player's key")
    inspect.add_argument("--in", dest="input", default="-", metavar="FILE", help="the layer (default: standard input)")
    inspect.set_defaults(func=_inspect)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m judge.player.escrow ...``: the same commands without the ``judge player`` prefix."""
    return run_standalone(register_escrow, argv)


if __name__ == "__main__":
    sys.exit(main())
