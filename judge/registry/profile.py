"""The registry's words, pure: player names, the profile fields a player may set, and
which of them are public.  Every check here says what would be accepted."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.turns.timing import TimingError, canonical_zone
from mailcmds.model import quote
from mailcmds.values import ValueSyntaxError, parse_address, parse_zone

#: Letters first, then letters, digits, '_', '-' or '.'; 2 to 24 characters.
NAME_RULE = "a player name is 2 to 24 letters, digits, '_', '-' or '.', starting with a letter"
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{1,23}")
#: Words that follow REGISTER as a verb of their own (or name the judge's roles), never a player.
RESERVED_NAMES = frozenset({"confirm", "delete", "master", "judge", "observer", "nobody"})

LEVELS = ("novice", "intermediate", "advanced", "expert")
#: What a player may make public; the name is always public.
PUBLIC_FIELDS = ("realname", "country", "zone", "level", "addresses", "record")
#: Public until the player chooses: the record (computed from the public games), nothing personal.
DEFAULT_PUBLIC = ("record",)
#: Longest free-text values (the columns' widths).
FIELD_LIMITS = {"realname": 64, "country": 48}

#: The profile lines REGISTER reads after its own line, with what each takes.
FIELD_SYNTAX = {
    "REALNAME": "REALNAME your name (nothing after REALNAME erases it)",
    "COUNTRY": "COUNTRY where you live",
    "ZONE": "ZONE Europe/Paris (an IANA time zone)",
    "LEVEL": "LEVEL " + "|".join(LEVELS),
    "PUBLIC": "PUBLIC " + " ".join(PUBLIC_FIELDS) + " (any of them) or PUBLIC NONE",
    "ADDRESS": "ADDRESS another@address (linked once confirmed from there)",
    "UNLINK": "UNLINK address (an address of yours no longer linked)",
}
#: What ends REGISTER's profile lines when the next line is not one of them anyway.
BODY_ENDS = ("END", "ENDREGISTER")
#: Most ADDRESS lines one REGISTER may give (each mails a confirmation to a stranger's box).
MOST_ADDRESSES_PER_MAIL = 3


def parse_name(text: str) -> str:
    """A player name as written (case kept); ValueSyntaxError saying what is accepted."""
    if "@" in text:
        raise ValueSyntaxError(f"'{quote(text, 60)}' is an address, not a player name: {NAME_RULE}")
    if not _NAME_RE.fullmatch(text):
        raise ValueSyntaxError(f"'{quote(text, 60)}' is not a player name: {NAME_RULE}")
    if text.lower() in RESERVED_NAMES:
        raise ValueSyntaxError(f"'{text}' is a word the judge keeps for itself; choose another player name")
    return text


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One profile line: ``field`` (``realname``, ``country``, ``zone``, ``level``,
    ``public``, ``address``, ``unlink``) and its checked value ("" erases a text field)."""

    field: str
    value: str


def _free_text(field: str, words: list[str], line: str) -> str:
    value = " ".join(words)
    limit = FIELD_LIMITS[field]
    if len(value) > limit:
        raise ValueSyntaxError(f"'{quote(line, 80)}' is too long: at most {limit} characters after "
                               f"{field.upper()}")
    if not value.isprintable():
        raise ValueSyntaxError(f"'{quote(line.encode('unicode_escape').decode('ascii'), 80)}' holds control or "
                               f"formatting characters: write plain text after {field.upper()}")
    if "@" in value:
        raise ValueSyntaxError(f"'{quote(line, 80)}': no addresses after {field.upper()} "
                               "(ADDRESS links one, PUBLIC addresses shows them)")
    return value


def _public(words: list[str], line: str) -> str:
    chosen = [w.lower() for w in words]
    if chosen == ["none"]:
        return ""
    unknown = [w for w in chosen if w not in PUBLIC_FIELDS]
    if not chosen or unknown:
        raise ValueSyntaxError(f"'{quote(line, 80)}': write {FIELD_SYNTAX['PUBLIC']}")
    return " ".join(field for field in PUBLIC_FIELDS if field in chosen)


def parse_field(line: str) -> FieldChange:
    """One profile line (its first word one of ``FIELD_SYNTAX``); ValueSyntaxError
    quoting the line (bounded) and saying what is accepted."""
    words = line.split()
    keyword = words[0].upper() if words else ""
    rest = words[1:]
    if keyword in ("REALNAME", "COUNTRY"):
        return FieldChange(keyword.lower(), _free_text(keyword.lower(), rest, line))
    if keyword == "ZONE" and len(rest) == 1:
        try:
            return FieldChange("zone", canonical_zone(parse_zone(rest[0])))
        except TimingError as problem:
            raise ValueSyntaxError(str(problem)) from None
    if keyword == "LEVEL" and len(rest) == 1 and rest[0].lower() in LEVELS:
        return FieldChange("level", rest[0].lower())
    if keyword == "PUBLIC":
        return FieldChange("public", _public(rest, line))
    if keyword in ("ADDRESS", "UNLINK") and len(rest) == 1:
        if len(rest[0]) > 254:
            raise ValueSyntaxError(f"'{quote(line, 80)}' is not an e-mail address (at most 254 characters)")
        return FieldChange(keyword.lower(), parse_address(rest[0]).lower())
    syntax = FIELD_SYNTAX.get(keyword)
    if syntax is None:
        raise ValueSyntaxError(f"'{quote(line, 80)}' is not a profile line: "
                               f"{', '.join(FIELD_SYNTAX)} (then END)")
    raise ValueSyntaxError(f"'{quote(line, 80)}': write {syntax}")


def is_field_line(text: str) -> bool:
    words = text.split()
    return bool(words) and words[0].upper() in FIELD_SYNTAX


def public_fields(stored: str) -> frozenset[str]:
    return frozenset(stored.split())
