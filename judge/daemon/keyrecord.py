"""One judge key for every host: the database records it, each host must hold it.

The first ``judge serve`` on a database records its key pair's fingerprint and public
key (``judge_key`` table).  Every later start, on any host, checks that its GnuPG home
holds that secret key, and refuses to start otherwise, saying how to copy it (``judge
key export --secret`` there, ``judge key import`` here): a game's broadcasts must all
carry one fingerprint.  ``judge serve`` settles this before it listens.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from judge.config import JudgeSettings, Settings
from judge.crypto.gpg import Keyring
from judge.crypto.verdict import normalize_fingerprint
from judge.publish.signing import FINGERPRINT_FILE, ensure_judge_key, home_of
from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.leases import wall_clock
from judge.store.models_hosts import JudgeKeyRecord

log = logging.getLogger("judge.daemon.keyrecord")

_KEY = table_of(JudgeKeyRecord)
RECORD_ID = 1


class JudgeKeyRefused(RuntimeError):
    """This host cannot sign as the judge the database knows; the message says how to fix it."""


@dataclass(frozen=True)
class RecordedKey:
    fingerprint: str
    public_key: str
    recorded_by: str


def recorded_key(store: Store) -> RecordedKey | None:
    with store.engine.connect() as connection:
        row = connection.execute(select(_KEY).where(_KEY.c.id == RECORD_ID)).first()
    return None if row is None else RecordedKey(row.fingerprint, row.public_key, row.recorded_by)


def record_key(store: Store, fingerprint: str, public_key: str) -> RecordedKey:
    """Record the judge's key unless one is recorded already; the record that holds."""
    try:
        with store.core_unit_of_work() as connection:
            connection.execute(insert(_KEY), {"id": RECORD_ID, "fingerprint": fingerprint, "public_key": public_key,
                                              "recorded_at": wall_clock(), "recorded_by": socket.gethostname()[:255]})
    except IntegrityError:
        pass  # another host recorded its key first
    found = recorded_key(store)
    assert found is not None
    return found


def _how_to_copy(fingerprint: str) -> str:
    return (f"copy the judge's key from a host that has it: `judge key export --secret --output judge-key.asc` "
            f"there, then `judge key import judge-key.asc` here (key {fingerprint})")


def require_recorded_key(judge: JudgeSettings, record: RecordedKey) -> str:
    """The recorded fingerprint, once this host's GnuPG home is known to hold its secret key."""
    home = home_of(judge)
    if judge.key_fingerprint and normalize_fingerprint(judge.key_fingerprint) != record.fingerprint:
        raise JudgeKeyRefused(
            f"[judge] key_fingerprint is {normalize_fingerprint(judge.key_fingerprint)}, but this database's "
            f"judge signs with {record.fingerprint} (recorded by {record.recorded_by}); configure that one, or none")
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        with Keyring(home) as keyring:
            secrets = keyring.fingerprints(secret=True)
    except Exception as problem:
        raise JudgeKeyRefused(f"this database's judge signs with {record.fingerprint}, but gpg cannot be used "
                              f"in {home}: {problem}") from None
    if record.fingerprint not in secrets:
        found = f"it holds {', '.join(secrets)}" if secrets else "it holds no secret key"
        raise JudgeKeyRefused(f"this database's judge signs with {record.fingerprint} (recorded by "
                              f"{record.recorded_by}), which is not in {home} ({found}); {_how_to_copy(record.fingerprint)}")
    (home / FINGERPRINT_FILE).write_text(record.fingerprint + "\n", encoding="ascii")
    return record.fingerprint


def settle_judge_key(settings: Settings, store: Store) -> str | None:
    """The judge's signing fingerprint, checked against (or recorded in) the database.

    None when there is no usable gpg and no key recorded: the judge runs and says its
    broadcasts are unsigned, as before.  ``JudgeKeyRefused`` when this host would sign
    with a different key from the recorded one, or cannot sign with it.
    """
    judge = settings.judge
    record = recorded_key(store)
    if record is not None:
        fingerprint = require_recorded_key(judge, record)
        log.info("judge key %s in %s (as recorded in the database)", fingerprint, home_of(judge))
        return fingerprint
    try:
        fingerprint = ensure_judge_key(judge)
        with Keyring(home_of(judge)) as keyring:
            public_key = keyring.export_public_key(fingerprint)
    except Exception as problem:  # no gpg, an unusable home: run, but say why nothing is signed
        log.error("judge key unavailable in %s (%s): broadcasts will NOT be signed", home_of(judge), problem)
        return None
    record = record_key(store, fingerprint, public_key)
    if record.fingerprint != fingerprint:
        raise JudgeKeyRefused(f"another host recorded the judge key {record.fingerprint} while this one made "
                              f"{fingerprint} in {home_of(judge)}; {_how_to_copy(record.fingerprint)}")
    log.info("judge key %s in %s (recorded in the database)", fingerprint, home_of(judge))
    return fingerprint
