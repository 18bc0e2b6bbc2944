"""Power tokens as players write them, resolved against a map's powers.

Commands keep tokens as written (``FRANCE``, ``F``, ``FGR``, ``M``); the handlers call
these helpers with the game's powers.  A token is a full power name, or a string of
initials (the Ken Lowe judge's convention: ``FGR`` is France, Germany and Russia);
``M``/``MASTER`` is the master and ``O``/``OBSERVERS`` the observers.  Name prefixes
are not guessed (``FRA`` means France, Russia, Austria).
"""

from __future__ import annotations

from typing import Protocol, Sequence

MASTER = "MASTER"
OBSERVERS = "OBSERVERS"


class PowerLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def letter(self) -> str: ...


class PowerListError(ValueError):
    """A token that names no power of the game (the message says which are known)."""


def _known(powers: Sequence[PowerLike]) -> str:
    return ", ".join(f"{p.letter} {p.name}" for p in powers)


def resolve_power(token: str, powers: Sequence[PowerLike], *, allow_master: bool = False) -> str:
    """One power from its name or initial (``F`` or ``FRANCE`` -> ``FRANCE``)."""
    upper = token.upper()
    if allow_master and upper in ("M", MASTER):
        return MASTER
    for power in powers:
        if upper == power.name.upper() or upper == power.letter.upper():
            return power.name
    raise PowerListError(f"'{token}' is not a power of this game (powers: {_known(powers)})")


def resolve_powers(
    tokens: Sequence[str],
    powers: Sequence[PowerLike],
    *,
    allow_master: bool = False,
    allow_observers: bool = False,
) -> tuple[str, ...]:
    """Tokens -> distinct power names in the order written; duplicates are an error
    (they usually mean a mistyped list)."""
    letters = {p.letter.upper(): p.name for p in powers}
    names = {p.name.upper(): p.name for p in powers}
    extra = {}
    if allow_master:
        extra.update({"M": MASTER, MASTER: MASTER})
    if allow_observers:
        extra.update({"O": OBSERVERS, OBSERVERS: OBSERVERS, "OBSERVER": OBSERVERS})
    result: list[str] = []
    for token in tokens:
        upper = token.upper()
        if upper in names:
            found = [names[upper]]
        elif upper in extra and len(upper) > 1:
            found = [extra[upper]]
        else:
            found = []
            for char in upper:
                if char in letters:
                    found.append(letters[char])
                elif char in extra:
                    found.append(extra[char])
                else:
                    raise PowerListError(
                        f"'{token}': '{char}' is not the initial of a power of this game (powers: {_known(powers)})"
                    )
        for name in found:
            if name in result:
                raise PowerListError(f"'{token}' names {name} twice")
            result.append(name)
    return tuple(result)
