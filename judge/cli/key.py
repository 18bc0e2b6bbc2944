"""``judge key export`` / ``judge key import FILE``: one judge key on every host."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, on_store, settings_from

if TYPE_CHECKING:  # imported when a command runs, not when `judge` starts
    from judge.config import Settings
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "key", help="the judge's own key pair: export it, import it on another host",
        description="Every host of one judge signs with the key the database records (the first "
                    "`judge serve` records its key).  Copy it to another host with `judge key export "
                    "--secret` there and `judge key import` here.",
    )
    commands = parser.add_subparsers(dest="key_command", metavar="ACTION", required=True)
    export = commands.add_parser("export", help="print the judge's key (public, or --secret to move it)")
    add_config_argument(export)
    export.add_argument("--secret", action="store_true",
                        help="export the secret key too (for `judge key import` on another host of this "
                             "judge; keep the file as safe as the key itself)")
    export.add_argument("--output", metavar="FILE", help="write to FILE (mode 0600) instead of standard output")
    export.set_defaults(func=run_export)
    importing = commands.add_parser(
        "import", help="install the judge's key from FILE into this host's GnuPG home",
        description="Import the secret key made by `judge key export --secret` into [judge] gnupg_home.  "
                    "Refused when the database records a different judge key.",
    )
    add_config_argument(importing)
    importing.add_argument("file", metavar="FILE", help="the exported key (`-` for standard input)")
    importing.set_defaults(func=run_import)


class KeyExportError(Exception):
    """The judge's key cannot be exported; the message says why and what to do."""


def export_judge_key(settings: "Settings", store: "Store", *, secret: bool) -> tuple[str, str]:
    """(fingerprint, ASCII-armoured key) of the judge's key: the one the database records,
    else the only secret key in its GnuPG home; with ``secret`` the secret key too.
    Raises KeyExportError."""
    from judge.crypto.gpg import GpgError, Keyring
    from judge.daemon.keyrecord import recorded_key
    from judge.publish.signing import home_of

    record = recorded_key(store)
    home = home_of(settings.judge)
    try:
        with Keyring(home) as keyring:
            secrets = keyring.fingerprints(secret=True)
            if record is not None:
                fingerprint = record.fingerprint
            elif len(secrets) == 1:
                fingerprint = secrets[0]
            else:
                raise KeyExportError(f"no judge key recorded in the database and {len(secrets)} secret keys in "
                                     f"{home}; start `judge serve` once to make and record one")
            text = keyring.export_secret_key(fingerprint) if secret else keyring.export_public_key(fingerprint)
    except GpgError as exc:
        raise KeyExportError(str(exc)) from None
    return fingerprint, text


def run_export(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    return on_store(settings, "key export", lambda store: _export(settings, store, args.secret, args.output))


def _export(settings: Settings, store: Store, secret: bool, output: str | None) -> int:
    try:
        fingerprint, text = export_judge_key(settings, store, secret=secret)
    except KeyExportError as exc:
        print(f"judge key export: {exc}", file=sys.stderr)
        return 1
    if output:
        path = Path(output)
        path.touch(mode=0o600)
        path.write_text(text, encoding="ascii")
        print(f"judge key {fingerprint} written to {path}")
    else:
        sys.stdout.write(text)
    return 0


def run_import(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"judge key import: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    return on_store(settings, "key import", lambda store: _import(settings, store, text, args.file))


def _import(settings: Settings, store: Store, text: str, source: str) -> int:
    from judge.crypto.gpg import GpgError, Keyring
    from judge.daemon.keyrecord import record_key, recorded_key
    from judge.publish.signing import FINGERPRINT_FILE, home_of

    home = home_of(settings.judge)
    try:
        record = recorded_key(store)
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        with Keyring(home) as keyring:
            secrets, _ = keyring.key_block_fingerprints(text)
            wanted = record.fingerprint if record is not None else (secrets[0] if len(secrets) == 1 else None)
            if wanted is None or wanted not in secrets:
                expected = (f"the judge key {record.fingerprint} this database records" if record is not None
                            else "exactly one secret key")
                print(f"judge key import: {source} holds secret keys {', '.join(secrets) or 'none'}; expected "
                      f"{expected} (made by `judge key export --secret`)", file=sys.stderr)
                return 1
            keyring.import_secret_key(text)
            if wanted not in keyring.fingerprints(secret=True):
                print(f"judge key import: gpg did not import the secret key {wanted}", file=sys.stderr)
                return 1
            if record is None:
                record_key(store, wanted, keyring.export_public_key(wanted))
        (home / FINGERPRINT_FILE).write_text(wanted + "\n", encoding="ascii")
    except GpgError as exc:
        print(f"judge key import: {exc}", file=sys.stderr)
        return 1
    print(f"judge key {wanted} imported into {home}")
    return 0
