"""Sealed orders (RULE SEALED): SET KEY, COMMIT, COMMIT SHA256, REVEAL.

A commitment is a detached OpenPGP signature over the orders file (``gpg --armor
--detach-sign orders.txt``), attached (``.asc``) or pasted inline under COMMIT; the
reveal is the orders file attached (byte-exact) or its text between REVEAL and
ENDREVEAL.  Signatures are checked by the handlers with gpg, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mailcmds.model import Attachment, Command, SourceLine
from judge.commands.press import stops_body
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count

HELP_ORDER = 70  # where this module's rows stand in their HELP sections (judge.commands.registry)


@dataclass(frozen=True, slots=True)
class SetKey(Command):
    """``SET KEY`` and an armored public key block pasted below it (``key``) or attached."""

    key: str | None
    attachment: Attachment | None = None

    @property
    def key_data(self) -> bytes:
        return self.attachment.data if self.attachment is not None else (self.key or "").encode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class Commit(Command):
    """``COMMIT`` with a detached signature: pasted below it (``signature``, armored) or
    attached (an ``.asc``/``.sig`` file)."""

    signature: str | None
    attachment: Attachment | None = None

    @property
    def signature_data(self) -> bytes:
        if self.attachment is not None:
            return self.attachment.data
        return (self.signature or "").encode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class CommitSha256(Command):
    """``COMMIT SHA256 <64 hex digits>``: the hash of the orders text plus a secret salt
    line (weaker than a signature; only where the game's RULE allows it)."""

    digest: str


@dataclass(frozen=True, slots=True)
class Reveal(Command):
    """``REVEAL`` and the orders text up to ``ENDREVEAL`` (``text``: the lines without
    leading or trailing blank lines, each ending in a newline), or the orders file
    attached (``attachment``: exact bytes).  ``lines`` are the body lines as received,
    for verifiers that try other line endings."""

    text: str | None
    attachment: Attachment | None = None
    lines: tuple[SourceLine, ...] = ()
    #: ``REVEAL who@game``: whose commitment this reveal answers, for a reveal sent without
    #: SIGNON (forwarded from the game's list, or sent to it): the reveal proves itself.
    target: str | None = None

    def data(self, encoding: str = "utf-8") -> bytes:
        """The revealed bytes: the attachment exactly, or the text encoded."""
        if self.attachment is not None:
            return self.attachment.data
        return (self.text or "").encode(encoding, "replace")


_SIGNATURE_SUFFIXES = {".asc", ".sig", ".sign", ".gpg", ".pgp"}
_KEY_SUFFIXES = {".asc", ".gpg", ".pgp", ".key", ".pub"}


def _armored_kind(attachment: Attachment) -> str | None:
    head = attachment.data.lstrip()[:64]
    match = re.match(rb"-----BEGIN (PGP [A-Z ]+)-----", head)
    return match[1].decode("ascii") if match else None


@dataclass(frozen=True, slots=True)
class RevealNumber(Command):
    """``REVEAL n``: the number committed to for the current lottery (fair assignment; read
    by the REVEAL verb)."""

    number: int
    target: str | None = None  # ``REVEAL who@game n``: as for :class:`Reveal`


def is_signature_attachment(attachment: Attachment) -> bool:
    kind = _armored_kind(attachment)
    if kind is not None:
        return kind in ("PGP SIGNATURE", "PGP MESSAGE")
    return attachment.content_type == "application/pgp-signature" or attachment.suffix in (".sig", ".sign")


def is_key_attachment(attachment: Attachment) -> bool:
    kind = _armored_kind(attachment)
    if kind is not None:
        return kind == "PGP PUBLIC KEY BLOCK"
    return attachment.content_type == "application/pgp-keys" or (
        attachment.suffix in _KEY_SUFFIXES and attachment.content_type != "application/pgp-signature"
    )


def is_orders_attachment(attachment: Attachment) -> bool:
    """A file that can be revealed orders: not a key, signature or HTML rendering."""
    if _armored_kind(attachment) is not None or attachment.content_type.startswith("application/pgp"):
        return False
    if attachment.suffix in _SIGNATURE_SUFFIXES | _KEY_SUFFIXES:
        return False
    return attachment.content_type in ("text/plain", "application/octet-stream") or attachment.suffix == ".txt"


def _set_key(ctx: ParseContext, line: CommandLine) -> SetKey:
    expect_count(line, 0, 0, "nothing on its line")
    found = ctx.take_pasted_or_attached(("PGP PUBLIC KEY BLOCK",), is_key_attachment)
    if found is None:
        raise line.fail(
            "SET KEY needs your public key: paste the output of gpg --armor --export you@example.org "
            "on the lines below it, or attach it"
        )
    return SetKey(*found, source=line.source)


_HEX_RE = re.compile(r"[0-9a-fA-F]{64}")


def _commit(ctx: ParseContext, line: CommandLine) -> Command:
    args = line.args
    if args:
        if args[0].upper() != "SHA256":
            raise line.fail(f"'{args[0]}' cannot follow COMMIT")
        if len(args) != 2 or not _HEX_RE.fullmatch(args[1]):
            raise line.fail("COMMIT SHA256 needs the 64 hexadecimal digits of the hash")
        return CommitSha256(args[1].lower(), source=line.source)
    found = ctx.take_pasted_or_attached(("PGP SIGNATURE", "PGP MESSAGE"), is_signature_attachment)
    if found is None:
        raise line.fail(
            "COMMIT needs a detached signature of your orders file: attach the .asc made by "
            "gpg --armor --detach-sign orders.txt, or paste it below COMMIT"
        )
    return Commit(*found, source=line.source)


_TARGET_RE = re.compile(r"[^@\s]+@[^@\s]+")


def _reveal(ctx: ParseContext, line: CommandLine) -> Command:
    args = list(line.args)
    target = None
    if args and _TARGET_RE.fullmatch(args[0]):
        target = args.pop(0).lower()
    if args:
        if len(args) == 1 and args[0].isdigit():
            return RevealNumber(int(args[0]), target=target, source=line.source)
        raise line.fail(f"'{' '.join(args)}' cannot follow REVEAL (REVEAL, REVEAL n for a lottery number, or "
                        "REVEAL who@game for a reveal sent without SIGNON)")
    body, _ = ctx.take_body(("ENDREVEAL",), stops_body)
    texts = [b.text for b in body]
    while texts and not texts[0].strip():
        texts.pop(0)
    while texts and not texts[-1].strip():
        texts.pop()
    if texts:
        return Reveal("\n".join(texts) + "\n", None, tuple(body), target=target, source=line.source)
    attachment = ctx.claim_attachment(is_orders_attachment)
    if attachment is not None:
        return Reveal(None, attachment, (), target=target, source=line.source)
    raise line.fail("REVEAL needs your orders: the orders file attached, or its text on the lines after REVEAL")


VERBS = (
    Verb(("SET", "KEY"), "SET KEY, then your ASCII-armored public key (or attach it)",
         "register your OpenPGP key for sealed orders and fair assignment", _set_key, body=True,
         help=(("sealed", "SET KEY", "then paste your public key (gpg --armor --export you)"),
               ("sealed", "", "or attach it"),)),
    Verb(("COMMIT",), "COMMIT with orders.asc attached (gpg --armor --detach-sign orders.txt), or COMMIT SHA256 hex",
         "commit to orders (or a lottery number) without showing them", _commit, body=True,
         help=(("sealed", "COMMIT", "attach orders.txt.asc made with"),
               ("sealed", "", "gpg --armor --detach-sign orders.txt"),
               ("sealed", "", "(or paste the signature below COMMIT)"),
               ("sealed", "COMMIT SHA256 hex", "without PGP: the SHA-256 of your orders text plus a"),
               ("sealed", "", "secret salt line (weaker; only if the game allows it)"),
               ("fair", "COMMIT", "commit to a lottery number, as for orders"),)),
    Verb(("REVEAL",), "REVEAL with the orders file attached, or REVEAL then the orders text then ENDREVEAL; REVEAL n for a lottery number; REVEAL who@game ... without SIGNON",
         "reveal the orders (or number) you committed to", _reveal, body=True,
         help=(("sealed", "REVEAL", "attach orders.txt, or write the orders below REVEAL"),
               ("sealed", "ENDREVEAL", "ends inline orders after REVEAL"),
               ("sealed", "REVEAL power@game", "the same without SIGNON (e.g. sent to the game's"),
               ("sealed", "", "list, or forwarded): the file proves itself"),
               ("fair", "REVEAL n", "reveal your committed lottery number"),
               ("fair", "REVEAL Pn@game", "a number or list file without SIGNON"),)),
)
