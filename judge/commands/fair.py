"""Fair power assignment: SET PREFERENCE, lottery REVEAL n, the last-number escrow, and
the messages of blinded assignment (BLINDED, BLIND, SHUFFLED, BLINDS, RECEIVED).

Lottery commitments use COMMIT (see :mod:`mailcmds.sealed`); ``REVEAL n`` is parsed
there and gives :class:`RevealNumber`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from mailcmds.model import Attachment, Command
from judge.commands.commitments import is_signature_attachment
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count, strip_comment
from mailcmds.values import ValueSyntaxError, parse_address, parse_game

HELP_ORDER = 60  # where this module's rows stand in their HELP sections (judge.commands.registry)


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
    """``RECEIVED game [digest]``: the game master confirms it has the shuffled list
    (``digest``: the SHA-256 of the list as received, one message a line)."""

    game: str
    digest: str | None = None


@dataclass(frozen=True, slots=True)
class BlindShuffle(Command):
    """``SHUFFLE game length`` and the players' addresses (game master -> witness): a
    blinded assignment begins; messages have ``length`` digits."""

    game: str
    length: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlindCollected(Command):
    """``COLLECTED game n`` (witness -> game master): all n blinding factors are in."""

    game: str
    count: int


@dataclass(frozen=True, slots=True)
class BlindConfirm(Command):
    """``CONFIRM game digits`` (player -> witness): the final message the player received."""

    game: str
    value: str


@dataclass(frozen=True, slots=True)
class BlindEchoes(Command):
    """``CONFIRMED game`` (witness -> game master) or ``REJECTED game`` (game master ->
    witness), then ``address digits`` lines: the players' echoed final messages."""

    game: str
    rejected: bool
    echoes: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class BlindFormat(Command):
    """``FORMAT game template POWER ...`` (game master -> all): the message format, e.g.
    ``4456x464``, and the power order its number counts in."""

    game: str
    template: str
    powers: tuple[str, ...]


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


def _escrow_parse(kind: Callable[..., Command]) -> Callable[[ParseContext, CommandLine], Command]:
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        expect_count(line, 0, 0, "nothing on its line")
        found = ctx.take_pasted_or_attached(
            ("PGP MESSAGE",),
            lambda a: is_signature_attachment(a) or a.suffix in (".asc", ".gpg", ".pgp")
            or a.content_type == "application/pgp-encrypted",
        )
        if found is None:
            raise line.fail(f"{line.verb.words[0]} needs an armored PGP MESSAGE below it or attached")
        return kind(*found, source=line.source)

    return parse


_DIGITS_RE = re.compile(r"\d{1,64}")


def _digits(line: CommandLine, value: str) -> str:
    if not _DIGITS_RE.fullmatch(value):
        raise line.fail(f"'{value}' is not a number written in digits")
    return value


def _continuation(ctx: ParseContext, accept: "re.Pattern[str]") -> list[str]:
    """Following lines whose every word matches ``accept``."""
    words_found: list[str] = []
    while (raw := ctx.peek()) is not None:
        words = strip_comment(raw.text).replace(",", " ").split()
        if not words or not all(accept.fullmatch(w) for w in words):
            break
        ctx.advance()
        words_found.extend(words)
    return words_found


def _blind_value(kind: Callable[..., Command]) -> Callable[[ParseContext, CommandLine], Command]:
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        args = expect_count(line, 2, 2, "the game and the number")
        return kind(parse_game(args[0]), _digits(line, args[1]), source=line.source)

    return parse


def _blind_list(kind: Callable[..., Command]) -> Callable[[ParseContext, CommandLine], Command]:
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        args = expect_count(line, 1, None, "the game, then the numbers")
        values = [_digits(line, v) for v in " ".join(args[1:]).replace(",", " ").split()]
        values += _continuation(ctx, _DIGITS_RE)  # further lines holding only numbers continue the list
        if not values:
            raise line.fail(f"{line.verb.words[0]} needs at least one number")
        return kind(parse_game(args[0]), tuple(values), source=line.source)

    return parse


def _receipt(ctx: ParseContext, line: CommandLine) -> BlindReceipt:
    args = expect_count(line, 1, 2, "the game (and the list's digest)")
    digest = args[1].lower() if len(args) > 1 else None
    if digest is not None and not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise line.fail(f"'{args[1]}' is not a SHA-256 digest (64 hexadecimal digits)")
    return BlindReceipt(parse_game(args[0]), digest, source=line.source)


_ADDRESS_WORD = re.compile(r"<?[^@\s<>]+@[^@\s<>]+>?")


def _shuffle(ctx: ParseContext, line: CommandLine) -> BlindShuffle:
    args = expect_count(line, 2, None, "the game, the message length, then the players' addresses")
    if not args[1].isdigit() or not 1 <= int(args[1]) <= 64:
        raise line.fail(f"'{args[1]}' is not a message length (1 to 64 digits)")
    try:
        players = [parse_address(a) for a in (*args[2:], *_continuation(ctx, _ADDRESS_WORD))]
    except ValueSyntaxError as problem:
        raise line.fail(str(problem)) from None
    if not players:
        raise line.fail("SHUFFLE needs the players' addresses")
    return BlindShuffle(parse_game(args[0]), int(args[1]), tuple(players), source=line.source)


def _collected(ctx: ParseContext, line: CommandLine) -> BlindCollected:
    args = expect_count(line, 2, 2, "the game and the number of blinds")
    if not args[1].isdigit():
        raise line.fail(f"'{args[1]}' is not a count")
    return BlindCollected(parse_game(args[0]), int(args[1]), source=line.source)


def _echoes(rejected: bool):
    def parse(ctx: ParseContext, line: CommandLine) -> BlindEchoes:
        args = expect_count(line, 1, 1, "the game; then one 'address digits' line per player")
        echoes: list[tuple[str, str]] = []
        while (raw := ctx.peek()) is not None:
            words = strip_comment(raw.text).split()
            if len(words) not in (1, 2) or not _ADDRESS_WORD.fullmatch(words[0]) or (
                    len(words) == 2 and not _DIGITS_RE.fullmatch(words[1])):
                break
            ctx.advance()
            try:
                echoes.append((parse_address(words[0]).lower(), words[1] if len(words) == 2 else ""))
            except ValueSyntaxError as problem:
                raise line.fail(str(problem)) from None
        return BlindEchoes(parse_game(args[0]), rejected, tuple(echoes), source=line.source)

    return parse


def _format(ctx: ParseContext, line: CommandLine) -> BlindFormat:
    args = expect_count(line, 3, None, "the game, the format (like 4456x464) and the powers in order")
    if not re.fullmatch(r"[0-9x]{2,64}", args[1].lower()) or "x" not in args[1].lower():
        raise line.fail(f"'{args[1]}' is not a message format: digits with a run of x, like 4456x464")
    powers = tuple(p.upper() for p in " ".join(args[2:]).replace(",", " ").split())
    return BlindFormat(parse_game(args[0]), args[1].lower(), powers, source=line.source)


VERBS = (
    Verb(("SET", "PREFERENCE"), "SET PREFERENCE AE(GI)R (or E[FGR][TAI], or * for none)",
         "your power preferences while the game forms (RULE PREFERENCES)", _preference,
         help=(("fair", "SET PREFERENCE AE(GI)R", "initials, most wanted first; (GI) = equal choice"),
               ("fair", "SET PREFERENCE E[FGR][TAI]", "the same with square brackets"),
               ("fair", "SET PREFERENCE *", "no preference; start with % to be a reserve player"),)),
    Verb(("ESCROW",), "ESCROW, then the armored nested \"last number\" message (or attach it)",
         "deposit the escrowed last number with your lottery commitment", _escrow_parse(EscrowDeposit), body=True,
         help=(("fair", "ESCROW", "then the armored nested \"last number\" message"),)),
    Verb(("PEEL",), "PEEL, then the armored decrypted layer (or attach it)",
         "publish the escrow layer you decrypted when the judge asks", _escrow_parse(EscrowPeel), body=True,
         help=(("fair", "PEEL", "then the armored escrow layer you decrypted"),)),
    Verb(("BLINDED",), "BLINDED game digits", "(to the witness) your assignment message with your blind added",
         _blind_value(BlindedMessage),
         help=(("fair", "BLINDED game digits", "to the witness: your message plus your blind"),)),
    Verb(("BLIND",), "BLIND game digits", "(to the witness) your blinding factor, when asked",
         _blind_value(BlindFactor),
         help=(("fair", "BLIND game digits", "to the witness: your blinding factor, when asked"),)),
    Verb(("SHUFFLED",), "SHUFFLED game digits ... (witness)", "the shuffled blinded messages, for the game master",
         _blind_list(ShuffledList), body=True,
         help=(("fair", "SHUFFLED game digits...", "the witness's shuffled list, to the game master"),)),
    Verb(("BLINDS",), "BLINDS game digits ... (witness)", "the collected blinding factors, for publication",
         _blind_list(BlindList), body=True,
         help=(("fair", "BLINDS game digits...", "the witness's list of blinding factors"),)),
    Verb(("RECEIVED",), "RECEIVED game [digest] (game master)", "confirm receipt of the shuffled list to the witness",
         _receipt,
         help=(("fair", "RECEIVED game [digest]", "the game master confirms the shuffled list"),)),
    Verb(("SHUFFLE",), "SHUFFLE game length address ... (game master)",
         "ask the witness to run a blinded assignment for these players", _shuffle, body=True,
         help=(("witness", "", ""),)),
    Verb(("COLLECTED",), "COLLECTED game n (witness)", "every player's blinding factor is in", _collected,
         help=(("witness", "", ""),)),
    Verb(("CONFIRM",), "CONFIRM game digits", "(to the witness) the final message you received", _blind_value(BlindConfirm),
         help=(("fair", "CONFIRM game digits", "to the witness: the final message you received"),)),
    Verb(("CONFIRMED",), "CONFIRMED game, then address digits lines (witness)",
         "the players' confirmed final messages, for the game master", _echoes(False), body=True,
         help=(("witness", "", ""),)),
    Verb(("REJECTED",), "REJECTED game, then address digits lines (game master)",
         "echoes that differ from what was sent; those messages were sent again", _echoes(True), body=True,
         help=(("witness", "", ""),)),
    Verb(("FORMAT",), "FORMAT game template POWER ... (game master)",
         "the published message format and power order", _format,
         help=(("witness", "", ""),)),
)
