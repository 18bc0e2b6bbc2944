"""Fair power assignment: SET PREFERENCE, lottery REVEAL n, the last-number escrow, and
the messages of blinded assignment (BLINDED, BLIND, SHUFFLED, BLINDS, RECEIVED).

Lottery commitments use COMMIT (see :mod:`mailcmds.sealed`); ``REVEAL n`` is parsed
there and gives :class:`RevealNumber`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Attachment, Command
from .sealed import is_signature_attachment
from .syntax import CommandLine, ParseContext, Verb, expect_count, strip_comment
from .values import ValueSyntaxError, parse_game


@dataclass(frozen=True, slots=True)
class SetPreference(Command):
    """``SET PREFERENCE AE(GI)R``: powers by initial, most wanted first; a group in
    ``( )`` or ``[ ]`` is one equal preference.  ``tiers`` is ``(("A",), ("E",), ("G",
    "I"), ("R",))``; empty for no preference (``*`` or nothing).  ``reserve``: the ``%``
    prefix (only fills a power that is dropped)."""

    tiers: tuple[tuple[str, ...], ...]
    reserve: bool = False

    @property
    def powers(self) -> tuple[str, ...]:
        return tuple(letter for tier in self.tiers for letter in tier)


@dataclass(frozen=True, slots=True)
class RevealNumber(Command):
    """``REVEAL n``: the number committed to for the current lottery."""

    number: int


@dataclass(frozen=True, slots=True)
class EscrowDeposit(Command):
    """``ESCROW`` and the nested encrypted "last number" message (armored, pasted below it
    or attached), published with the last revealer's commitment."""

    message: str | None
    attachment: Attachment | None = None


@dataclass(frozen=True, slots=True)
class EscrowPeel(Command):
    """``PEEL`` and one decrypted layer of an escrow message (armored or attached)."""

    message: str | None
    attachment: Attachment | None = None


@dataclass(frozen=True, slots=True)
class BlindedMessage(Command):
    """``BLINDED game digits``: a player's assignment message with the player's blind
    added (sent to the witness).  Digits are kept as text: leading zeros count."""

    game: str
    value: str


@dataclass(frozen=True, slots=True)
class BlindFactor(Command):
    """``BLIND game digits``: a player's blinding factor, when the witness asks for it."""

    game: str
    value: str


@dataclass(frozen=True, slots=True)
class ShuffledList(Command):
    """``SHUFFLED game`` and the shuffled blinded messages (witness -> game master)."""

    game: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlindList(Command):
    """``BLINDS game`` and the players' blinding factors the witness collected."""

    game: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlindReceipt(Command):
    """``RECEIVED game``: the game master confirms it has the shuffled list."""

    game: str


PREFERENCE_RULE = (
    "list powers by initial, most wanted first, with equal choices in brackets: "
    "SET PREFERENCE AE(GI)R or E[FGR][TAI]; * for no preference; % first for a reserve"
)


def parse_preference(text: str) -> tuple[tuple[tuple[str, ...], ...], bool]:
    spec = re.sub(r"[\s,]", "", text).upper()
    reserve = spec.startswith("%")
    if reserve:
        spec = spec[1:]
    if spec in ("", "*"):
        return (), reserve
    tiers: list[tuple[str, ...]] = []
    seen: set[str] = set()
    group: list[str] | None = None
    closer = ""
    for char in spec:
        if char in "([":
            if group is not None:
                raise ValueSyntaxError(f"'{text}' nests brackets: {PREFERENCE_RULE}")
            group, closer = [], ")" if char == "(" else "]"
        elif char in ")]":
            if group is None or char != closer:
                raise ValueSyntaxError(f"'{text}' has an unmatched '{char}': {PREFERENCE_RULE}")
            if not group:
                raise ValueSyntaxError(f"'{text}' has empty brackets: {PREFERENCE_RULE}")
            tiers.append(tuple(group))
            group = None
        elif "A" <= char <= "Z":
            if char in seen:
                raise ValueSyntaxError(f"'{text}' names {char} twice: {PREFERENCE_RULE}")
            seen.add(char)
            if group is not None:
                group.append(char)
            else:
                tiers.append((char,))
        else:
            raise ValueSyntaxError(f"'{text}': '{char}' is not a power initial: {PREFERENCE_RULE}")
    if group is not None:
        raise ValueSyntaxError(f"'{text}' has an unclosed bracket: {PREFERENCE_RULE}")
    return tuple(tiers), reserve


def _preference(ctx: ParseContext, line: CommandLine) -> SetPreference:
    tiers, reserve = parse_preference(" ".join(line.args))
    return SetPreference(tiers, reserve, source=line.source)


def _escrow_parse(kind: type[Command]):
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        expect_count(line, 0, 0, "nothing on its line")
        block = ctx.take_block(("PGP MESSAGE",))
        if block is not None:
            return kind(block.text, source=line.source)
        attachment = ctx.claim_attachment(
            lambda a: is_signature_attachment(a) or a.suffix in (".asc", ".gpg", ".pgp")
            or a.content_type == "application/pgp-encrypted"
        )
        if attachment is not None:
            return kind(None, attachment, source=line.source)
        raise line.fail(f"{line.verb.words[0]} needs an armored PGP MESSAGE below it or attached")

    return parse


_DIGITS_RE = re.compile(r"\d{1,64}")


def _digits(line: CommandLine, value: str) -> str:
    if not _DIGITS_RE.fullmatch(value):
        raise line.fail(f"'{value}' is not a number written in digits")
    return value


def _blind_value(kind: type[Command]):
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        args = expect_count(line, 2, 2, "the game and the number")
        return kind(parse_game(args[0]), _digits(line, args[1]), source=line.source)

    return parse


def _blind_list(kind: type[Command]):
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        args = expect_count(line, 1, None, "the game, then the numbers")
        values = [_digits(line, v) for v in " ".join(args[1:]).replace(",", " ").split()]
        # Further lines holding only numbers continue the list.
        while (raw := ctx.peek()) is not None:
            words = strip_comment(raw.text).replace(",", " ").split()
            if not words or not all(_DIGITS_RE.fullmatch(w) for w in words):
                break
            ctx.advance()
            values.extend(words)
        if not values:
            raise line.fail(f"{line.verb.words[0]} needs at least one number")
        return kind(parse_game(args[0]), tuple(values), source=line.source)

    return parse


def _receipt(ctx: ParseContext, line: CommandLine) -> BlindReceipt:
    args = expect_count(line, 1, 1, "the game")
    return BlindReceipt(parse_game(args[0]), source=line.source)


VERBS = (
    Verb(("SET", "PREFERENCE"), "SET PREFERENCE AE(GI)R (or E[FGR][TAI], or * for none)",
         "your power preferences while the game forms (RULE PREFERENCES)", _preference),
    Verb(("ESCROW",), "ESCROW, then the armored nested \"last number\" message (or attach it)",
         "deposit the escrowed last number with your lottery commitment", _escrow_parse(EscrowDeposit), body=True),
    Verb(("PEEL",), "PEEL, then the armored decrypted layer (or attach it)",
         "publish the escrow layer you decrypted when the judge asks", _escrow_parse(EscrowPeel), body=True),
    Verb(("BLINDED",), "BLINDED game digits", "(to the witness) your assignment message with your blind added",
         _blind_value(BlindedMessage)),
    Verb(("BLIND",), "BLIND game digits", "(to the witness) your blinding factor, when asked",
         _blind_value(BlindFactor)),
    Verb(("SHUFFLED",), "SHUFFLED game digits ... (witness)", "the shuffled blinded messages, for the game master",
         _blind_list(ShuffledList), body=True),
    Verb(("BLINDS",), "BLINDS game digits ... (witness)", "the collected blinding factors, for publication",
         _blind_list(BlindList), body=True),
    Verb(("RECEIVED",), "RECEIVED game (game master)", "confirm receipt of the shuffled list to the witness",
         _receipt),
)
