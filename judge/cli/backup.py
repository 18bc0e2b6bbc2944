"""``judge backup FILE``: one archive with a consistent copy of the SQLite store and the
judge's key pair, made while the judge runs.

The copy is SQLite's online backup (the backup API reads one consistent snapshot; in WAL
mode the running judge's writers are not held up), checked with ``PRAGMA integrity_check``
before it is archived.  The archive (tar, gzip when FILE ends in .gz or .tgz; mode 0600:
it holds the secret key) contains ``judge.db``, ``judge-key.asc`` (the secret key, as
``judge key export --secret`` writes it) and ``backup.json`` (when, what, which schema and
key) and ``dkim-keys.json`` (the DKIM key pairs, also in ``judge.db``).  On PostgreSQL
the archive holds the keys and ``backup.json`` only: dump the database with ``pg_dump``
(README, "Backups").
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import sqlite3
import sys
import tarfile
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from judge.cli.options import add_config_argument, settings_from, store_from

DATABASE_NAME = "judge.db"
KEY_NAME = "judge-key.asc"
DKIM_NAME = "dkim-keys.json"
MANIFEST_NAME = "backup.json"


class BackupError(Exception):
    """The backup cannot be made; the message says why."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "backup", help="archive a consistent copy of the SQLite store and the judge's key",
        description="Write FILE: a tar archive (gzip with .gz/.tgz) of an online copy of the SQLite store "
                    "(consistent while the judge runs), the judge's secret key and a manifest; mode 0600.  "
                    "On PostgreSQL only the key and the manifest (use pg_dump for the database).",
    )
    add_config_argument(parser)
    parser.add_argument("file", metavar="FILE", help="the archive to write (replaced atomically if it exists)")
    parser.add_argument("--no-key", action="store_true",
                        help="leave the judge's secret keys out: its OpenPGP key (then keep `judge key export "
                             "--secret` elsewhere) and dkim-keys.json (the SQLite copy still holds the DKIM keys)")
    parser.set_defaults(func=run)


def copy_sqlite(source: Path, target: Path) -> int:
    """SQLite's online backup of ``source`` into the new file ``target``, checked; the
    number of pages copied.  Raises BackupError."""
    try:
        reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open the database {source}: {exc}") from None
    try:
        writer = sqlite3.connect(target)
        try:
            reader.backup(writer)  # all pages in one step: one snapshot, never a torn copy
            writer.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            verdict = writer.execute("PRAGMA integrity_check").fetchone()[0]
            pages = writer.execute("PRAGMA page_count").fetchone()[0]
        finally:
            writer.close()
    except sqlite3.Error as exc:
        raise BackupError(f"copying {source}: {exc}") from None
    finally:
        reader.close()
    if verdict != "ok":
        raise BackupError(f"the copy of {source} fails its integrity check: {verdict}")
    return int(pages)


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    info.mtime = int(datetime.now(timezone.utc).timestamp())
    archive.addfile(info, io.BytesIO(data))


def run(args: argparse.Namespace) -> int:
    from judge.cli.key import KeyExportError, export_judge_key
    from judge.mailauth.keystore import recorded_keys
    from judge.store.schema import current_revision
    from judge.daemon.worker_process import sqlite_file

    settings = settings_from(args)
    if settings is None:
        return 2
    target = Path(args.file)
    if not target.parent.is_dir():
        print(f"judge backup: {str(target.parent)!r} is not a directory; name a file in an existing folder",
              file=sys.stderr)
        return 2
    store = store_from(settings, "backup")
    if store is None:
        return 1
    shown = store.engine.url.render_as_string(hide_password=True)
    manifest: dict[str, Any] = {"made_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                "store": shown, "schema_revision": current_revision(store.engine),
                                "files": [], "key_fingerprint": None}
    key_text = None
    dkim_keys: list[dict[str, str]] = []
    try:
        if not args.no_key:
            try:
                manifest["key_fingerprint"], key_text = export_judge_key(settings, store, secret=True)
            except KeyExportError as exc:
                print(f"judge backup: warning: the judge's key is not in the backup: {exc}", file=sys.stderr)
            dkim_keys = [dataclasses.asdict(key) for _, key in sorted(recorded_keys(store).items())]
            manifest["dkim_selectors"] = [key["selector"] for key in dkim_keys]
    finally:
        store.dispose()
    database = sqlite_file(settings.store_url)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".judge-backup-") as work:
        members: list[tuple[str, bytes]] = []
        if database is not None:
            copy = Path(work) / DATABASE_NAME
            try:
                pages = copy_sqlite(database, copy)
            except BackupError as exc:
                print(f"judge backup: {exc}", file=sys.stderr)
                return 1
            members.append((DATABASE_NAME, copy.read_bytes()))
            manifest["pages"] = pages
        if key_text is not None:
            members.append((KEY_NAME, key_text.encode("ascii")))
        if dkim_keys:
            members.append((DKIM_NAME, (json.dumps(dkim_keys, indent=2) + "\n").encode("ascii")))
        manifest["files"] = [name for name, _ in members]
        members.append((MANIFEST_NAME, (json.dumps(manifest, indent=2) + "\n").encode("utf-8")))
        partial = Path(work) / "archive"
        mode: Literal["w:gz", "w"] = "w:gz" if target.name.endswith((".gz", ".tgz")) else "w"
        with tarfile.open(partial, mode) as archive:
            for name, data in members:
                _add(archive, name, data)
        os.chmod(partial, 0o600)
        os.replace(partial, target)
    what = [f"the SQLite store ({shown})" if database is not None else None,
            f"the judge's key {manifest['key_fingerprint']}" if key_text is not None else None,
            f"the DKIM keys ({', '.join(manifest['dkim_selectors'])})" if dkim_keys else None]
    print(f"judge backup: {target} holds " + " and ".join(w for w in what if w) if any(what)
          else f"judge backup: {target} holds the manifest only")
    if database is None:
        print(f"judge backup: the database {shown} is not in the archive: dump it with pg_dump "
              "(README, \"Backups\")", file=sys.stderr)
    return 0
