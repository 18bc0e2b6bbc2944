"""The judge's own key and the signed broadcasts made with it.

``judge serve`` makes sure the key pair exists when it starts (``ensure_judge_key``:
generated into ``<data_dir>/gnupg`` on first start, or the configured home and
fingerprint).  Every broadcast is then built by ``broadcast_mime``: the text with a
footer naming the judge's key fingerprint, any files attached, and the whole signed as
PGP/MIME (RFC 3156) so that a player can check it came from the judge.

A keyring is opened for one use and its gpg-agent stopped afterwards unless another
use, in this or another process, still has the home open (``judge_keyring``,
judge.crypto.gpg): the judge keeps no gpg process running between mails, several
processes sign at once on one home, and a test leaves none behind.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Iterator, Sequence

from judge.config import JudgeSettings
from judge.crypto.gpg import Keyring
from judge.crypto.judgekey import judge_home, open_judge_keyring
from judge.crypto.pgpmime import sign_message
from judge.crypto.verdict import normalize_fingerprint

log = logging.getLogger("judge.signing")

# The judge's signing fingerprint, written when the key pair is found or made; delete it
# after changing the secret keys in the home by hand.
FINGERPRINT_FILE = "judge-fingerprint"


@dataclass(frozen=True)
class FileAttachment:
    """A file sent with a broadcast (commitments, revealed orders, the phase record)."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    disposition: str = "attachment"  # "inline": shown in the mail (the phase's PNG picture)


@dataclass(frozen=True)
class JudgeKey:
    """An open keyring holding the judge's secret key, and that key's fingerprint."""

    keyring: Keyring
    fingerprint: str


def home_of(judge: JudgeSettings) -> Path:
    return judge_home(judge.data_dir, judge.gnupg_home or None)


def has_judge_key(judge: JudgeSettings) -> bool:
    """Cheap check (no gpg run): has a key pair ever been made or installed here?"""
    home = home_of(judge)
    return (home / "private-keys-v1.d").is_dir() and any((home / "private-keys-v1.d").iterdir())


# A keyring kept open by ``keyring_held`` for a batch of uses in this thread.
_HELD: ContextVar[tuple[Path, JudgeKey] | None] = ContextVar("judge_keyring_held", default=None)


@contextmanager
def keyring_held(judge: JudgeSettings) -> Iterator[None]:
    """Keep the judge's keyring (and its gpg-agent) open while the block runs, for a batch of
    signatures such as one scheduler pass: ``judge_keyring`` inside the block (in this
    thread) reuses it instead of starting and stopping an agent for every broadcast."""
    if _HELD.get() is not None or not has_judge_key(judge):
        yield
        return
    with judge_keyring(judge) as key:
        token = _HELD.set((home_of(judge), key) if key is not None else None)
        try:
            yield
        finally:
            _HELD.reset(token)


@contextmanager
def judge_keyring(judge: JudgeSettings, *, create: bool = False) -> Iterator[JudgeKey | None]:
    """The judge's keyring for one use; None when the judge has no key and ``create`` is
    False (a judge not started by ``judge serve``, e.g. in unit tests).  The gpg-agent the
    use started is stopped on exit (unless ``keyring_held`` keeps it for a batch)."""
    held = _HELD.get()
    if held is not None and held[0] == home_of(judge):
        yield held[1]
        return
    if not create and not has_judge_key(judge):
        yield None
        return
    home = home_of(judge)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    remembered = home / FINGERPRINT_FILE
    if judge.key_fingerprint or remembered.is_file():
        # Known key: no gpg listing on every use (it costs more than the signature).
        keyring = Keyring(home)
        fingerprint = normalize_fingerprint(judge.key_fingerprint or remembered.read_text(encoding="ascii"))
    else:
        keyring, fingerprint = open_judge_keyring(home, name=judge.name, address=judge.address)
        remembered.write_text(fingerprint + "\n", encoding="ascii")
    try:
        yield JudgeKey(keyring, fingerprint)
    finally:
        keyring.close()


def ensure_judge_key(judge: JudgeSettings) -> str:
    """The judge's signing fingerprint, generating the key pair on first start; a configured
    fingerprint must have its secret key in the home (checked here, at start)."""
    home = home_of(judge)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    keyring, fingerprint = open_judge_keyring(home, name=judge.name, address=judge.address,
                                              fingerprint=judge.key_fingerprint or None)
    try:
        (home / FINGERPRINT_FILE).write_text(fingerprint + "\n", encoding="ascii")
    finally:
        keyring.close()
    return fingerprint


def footer(fingerprint: str | None) -> str:
    if fingerprint is None:
        return "-- \nThis mail is not signed: the judge has no key yet.\n"
    spaced = " ".join(fingerprint[i:i + 4] for i in range(0, len(fingerprint), 4))
    return (
        "-- \n"
        "Signed by the judge (PGP/MIME). Judge key fingerprint:\n"
        f"  {spaced}\n"
        "Send GET KEY to the judge for the key itself.\n"
    )


def compose(body: str, attachments: Sequence[FileAttachment] = ()) -> EmailMessage:
    """The content of a broadcast: the text, then each file as an attachment."""
    message = EmailMessage()
    text = body if body.endswith("\n") else body + "\n"
    message.set_content(text, charset="utf-8", cte="quoted-printable")
    for item in attachments:
        maintype, _, subtype = item.content_type.partition("/")
        message.add_attachment(item.data, maintype=maintype, subtype=subtype or "octet-stream",
                               filename=item.filename, disposition=item.disposition)
    return message


def broadcast_mime(judge: JudgeSettings, body: str,
                   attachments: Sequence[FileAttachment] = ()) -> tuple[str, EmailMessage | None]:
    """(the text with its footer, the MIME body to send).

    The MIME body is PGP/MIME signed when the judge has a key; None when there is neither
    a key nor an attachment (the plain text is then the whole mail).
    """
    with judge_keyring(judge) as key:
        if key is None:
            text = body.rstrip("\n") + "\n\n" + footer(None)
            if attachments:
                log.warning("judge key missing in %s: broadcast sent unsigned", home_of(judge))
                return text, compose(text, attachments)
            return text, None
        text = body.rstrip("\n") + "\n\n" + footer(key.fingerprint)
        return text, sign_message(key.keyring, compose(text, attachments), key.fingerprint)


def stop_judge_agents(judge: JudgeSettings) -> None:
    """Stop any gpg daemon left for the judge's home (at shutdown), unless another
    process of the judge (a second daemon, ``judge tick``) is using it right now."""
    from judge.crypto.gpg import stop_agents_if_unused

    stop_agents_if_unused(home_of(judge))


__all__ = [
    "FileAttachment", "JudgeKey", "broadcast_mime", "compose", "ensure_judge_key", "footer",
    "has_judge_key", "home_of", "judge_keyring", "keyring_held", "stop_judge_agents",
]
