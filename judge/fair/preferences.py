"""Preference lists such as ``AE(GI)R``: which powers a player wants, best first.

Accepted forms (letters are the map's power initials, case-insensitive, spaces ignored):

* ``AE(GI)R`` -- Austria, then England, then Germany or Italy equally, then Russia;
* ``E[FGR][TAI]`` -- the njudge form, square brackets for equal preference;
* ``*`` or the empty text -- no preference;
* a ``%`` prefix (``%REG``, ``%``) -- a reserve player, who only fills a dropped power.

Powers not named are "don't care": the player takes them after all listed wishes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

_CLOSING = {"(": ")", "[": "]"}
_RESERVE = "%"
_NO_PREFERENCE = "*"


class PreferenceError(ValueError):
    """A preference list that cannot be read; the message quotes it and says what is accepted."""

    def __init__(self, text: str, problem: str, letters: Sequence[str]) -> None:
        self.text = text
        self.problem = problem
        accepted = (
            f"write the power initials ({', '.join(letters)}) best first, with (..) or [..] "
            "around powers you like equally, * for no preference, and a leading % for a reserve"
        )
        super().__init__(f"preference list {text!r}: {problem}; {accepted}")


@dataclass(frozen=True)
class PreferenceList:
    """Groups of power letters, best group first; powers inside a group are equally liked."""

    groups: tuple[tuple[str, ...], ...] = ()
    reserve: bool = False

    @property
    def has_preference(self) -> bool:
        return bool(self.groups)

    def powers(self) -> tuple[str, ...]:
        """Every power named, in the order written."""
        return tuple(power for group in self.groups for power in group)

    def canonical(self) -> str:
        """The list written back in the ``AE(GI)R`` form (``*`` when empty)."""
        body = "".join(group[0] if len(group) == 1 else "(" + "".join(group) + ")" for group in self.groups)
        return (_RESERVE if self.reserve else "") + (body or _NO_PREFERENCE)


def _validated_letters(letters: Sequence[str]) -> tuple[str, ...]:
    result = tuple(letter.upper() for letter in letters)
    if any(len(letter) != 1 or not letter.isalnum() for letter in result) or len(set(result)) != len(result):
        raise ValueError(f"power letters must be distinct single letters or digits, got {list(letters)!r}")
    return result


def parse_preferences(text: str, letters: Sequence[str]) -> PreferenceList:
    """Read a preference list; ``letters`` are the map's power initials (standard: AEFGIRT).

    Raises :class:`PreferenceError` for an unknown letter, a power named twice, unbalanced
    or nested brackets, an empty bracket pair or a misplaced ``*`` / ``%``.
    """
    known = _validated_letters(letters)
    compact = "".join(text.split()).upper()
    reserve = compact.startswith(_RESERVE)
    body = compact[1:] if reserve else compact
    if _RESERVE in body:
        raise PreferenceError(text, "'%' may only stand first, to mark a reserve player", known)
    if body == _NO_PREFERENCE or not body:
        return PreferenceList((), reserve)
    if _NO_PREFERENCE in body:
        raise PreferenceError(text, "'*' means no preference and must stand alone", known)

    groups: list[tuple[str, ...]] = []
    seen: set[str] = set()
    open_bracket: str | None = None
    current: list[str] = []
    for char in body:
        if char in _CLOSING:
            if open_bracket is not None:
                raise PreferenceError(text, f"brackets cannot nest ({char!r} inside {open_bracket!r})", known)
            open_bracket, current = char, []
        elif char in _CLOSING.values():
            if open_bracket is None:
                raise PreferenceError(text, f"unbalanced brackets: {char!r} closes nothing", known)
            if char != _CLOSING[open_bracket]:
                raise PreferenceError(text, f"unbalanced brackets: {open_bracket!r} closed by {char!r}", known)
            if not current:
                raise PreferenceError(text, f"empty brackets {open_bracket}{char}", known)
            groups.append(tuple(current))
            open_bracket = None
        elif char in known:
            if char in seen:
                raise PreferenceError(text, f"power {char!r} is named twice", known)
            seen.add(char)
            if open_bracket is None:
                groups.append((char,))
            else:
                current.append(char)
        elif char.isalpha():
            raise PreferenceError(text, f"unknown power letter {char!r}", known)
        else:
            raise PreferenceError(text, f"unexpected character {char!r}", known)
    if open_bracket is not None:
        raise PreferenceError(
            text, f"unbalanced brackets: {open_bracket!r} is never closed by {_CLOSING[open_bracket]!r}", known
        )
    return PreferenceList(tuple(groups), reserve)
