"""The judge's DKIM keys in the database: made by the first process that needs them.

``settle_dkim_keys`` returns the key of each configured selector, making and recording
any that is missing (``judge serve`` at its start, ``judge dns``).  Two processes racing
to make one keep the first one recorded, so every host signs with the same keys.  A
selector recorded with another key type than configured is refused: its DNS record
would no longer match.
"""

from __future__ import annotations

import socket
from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.config import DkimSettings, JudgeSettings
from judge.mailauth.dkim_keys import ED25519, RSA, DkimKey, new_key
from judge.mailauth.dkim_sign import Signer, signer_for
from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.leases import wall_clock
from judge.store.models_mailauth import DkimKeyRecord, MailSecret

_TABLE = table_of(DkimKeyRecord)
_SECRET = table_of(MailSecret)
TOKEN_KEY = "token-key"


class DkimKeyRefused(RuntimeError):
    """A recorded key does not fit the configuration; the message says what to change."""


def wanted_selectors(dkim: DkimSettings) -> tuple[tuple[str, str], ...]:
    """(selector, key type) of each signature the settings ask for."""
    return ((dkim.rsa_selector, RSA), (dkim.ed25519_selector, ED25519))


def signing_domain(dkim: DkimSettings, judge: JudgeSettings) -> str:
    """``d=``: ``[dkim] domain``, else the domain of the judge's address."""
    return dkim.domain or judge.address.rpartition("@")[2] or judge.domain


def recorded_keys(store: Store) -> dict[str, DkimKey]:
    with store.engine.connect() as connection:
        rows = connection.execute(select(_TABLE)).all()
    return {row.selector: DkimKey(row.selector, row.algorithm, row.private_key, row.public_key) for row in rows}


def settle_dkim_keys(store: Store, dkim: DkimSettings) -> tuple[DkimKey, ...]:
    """The key of each configured selector, made and recorded where missing."""
    found = recorded_keys(store)
    keys = []
    for selector, algorithm in wanted_selectors(dkim):
        key = found.get(selector)
        if key is None:
            key = _record(store, new_key(selector, algorithm))
        if key.algorithm != algorithm:
            raise DkimKeyRefused(
                f"the DKIM selector {selector!r} holds an {key.algorithm} key in the database, but is configured "
                f"for {algorithm}: name a new selector in [dkim] (its key is made at the next start)")
        keys.append(key)
    return tuple(keys)


def _record(store: Store, key: DkimKey) -> DkimKey:
    try:
        with store.core_unit_of_work() as connection:
            connection.execute(insert(_TABLE), {
                "selector": key.selector, "algorithm": key.algorithm, "private_key": key.private_key,
                "public_key": key.public_key, "created_at": wall_clock(), "created_by": socket.gethostname()[:255]})
    except IntegrityError:
        pass  # another process recorded this selector first: sign with its key
    return recorded_keys(store)[key.selector]


def judge_signer(store: Store, dkim: DkimSettings, judge: JudgeSettings) -> Signer | None:
    """The Signer of every mail sent, or None when ``[dkim] sign`` is off."""
    if not dkim.sign:
        return None
    return signer_for(signing_domain(dkim, judge), settle_dkim_keys(store, dkim))



def token_key_in(connection: Connection | Session) -> bytes | None:
    """The token key as this transaction sees it; None before any was made (then no
    token the judge handed out can exist)."""
    value = connection.execute(select(_SECRET.c.value).where(_SECRET.c.name == TOKEN_KEY)).scalar()
    return None if value is None else bytes.fromhex(value)


def token_key(store: Store) -> bytes:
    """The key of unsubscribe and bounce tokens (judge.mailauth.tokens), made once."""
    import secrets

    def read() -> str | None:
        with store.engine.connect() as connection:
            key = token_key_in(connection)
        return None if key is None else key.hex()

    found = read()
    if found is None:
        try:
            with store.core_unit_of_work() as connection:
                connection.execute(insert(_SECRET), {"name": TOKEN_KEY, "value": secrets.token_hex(32),
                                                     "created_at": wall_clock()})
        except IntegrityError:
            pass  # another process made it first
        found = read()
    assert found is not None
    return bytes.fromhex(found)
