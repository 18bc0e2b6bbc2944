"""Digit-wise blinding arithmetic and the published message format (reference 001).

Messages and blinds are strings of decimal digits of one length (leading zeros count).
Blinding adds digit by digit without carry (4+7=1, not 11); unblinding subtracts the same
way, so ``sub_digits(add_digits(m, b), b) == m``.

A power message follows the published format, e.g. ``4456x464``: fixed verification digits
with the power's number (its index in the published power order, 0 = the first power)
in the ``x`` places.  A message that does not show the verification digits is not a power.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Sequence

PLACEHOLDER = "x"


class BlindError(ValueError):
    """Digits or a format that cannot be used; the message quotes them."""


def check_digits(text: str, length: int | None = None, what: str = "number") -> str:
    """``text`` if it is a string of decimal digits (of ``length`` digits when given)."""
    if not text or not text.isascii() or not text.isdigit():
        raise BlindError(f"{what} {text!r} must consist of the digits 0-9 only")
    if length is not None and len(text) != length:
        raise BlindError(f"{what} {text!r} has {len(text)} digits, expected {length}")
    return text


def _pairwise(a: str, b: str, sign: int) -> str:
    check_digits(a, what="first number")
    check_digits(b, len(a), what="second number")
    return "".join(str((int(x) + sign * int(y)) % 10) for x, y in zip(a, b))


def add_digits(a: str, b: str) -> str:
    """Digit-wise sum without carry: ``add_digits("44560464", "54646487") == "98106841"``."""
    return _pairwise(a, b, 1)


def sub_digits(a: str, b: str) -> str:
    """Digit-wise difference without borrow: the inverse of :func:`add_digits`."""
    return _pairwise(a, b, -1)


def random_digits(length: int, rng: random.Random) -> str:
    """``length`` random digits; pass ``secrets.SystemRandom()`` for real use."""
    return "".join(str(rng.randrange(10)) for _ in range(length))


@dataclass(frozen=True)
class MessageFormat:
    """The published format: a template like ``4456x464`` and the power order it numbers."""

    template: str
    powers: tuple[str, ...]

    def __post_init__(self) -> None:
        slots = self.template.count(PLACEHOLDER)
        if slots == 0 or PLACEHOLDER * slots not in self.template:
            raise BlindError(
                f"format {self.template!r} must hold one run of {PLACEHOLDER!r} for the power number, like 4456x464"
            )
        fixed = self.template.replace(PLACEHOLDER, "")
        if fixed and (not fixed.isascii() or not fixed.isdigit()):
            raise BlindError(f"format {self.template!r} may contain only digits and {PLACEHOLDER!r}")
        if not self.powers or len(set(self.powers)) != len(self.powers):
            raise BlindError(f"format needs distinct powers, got {list(self.powers)!r}")
        if len(self.powers) > 10**slots:
            raise BlindError(f"format {self.template!r} has room for {10**slots} powers, not {len(self.powers)}")

    @property
    def length(self) -> int:
        return len(self.template)

    @property
    def _slot(self) -> slice:
        start = self.template.index(PLACEHOLDER)
        return slice(start, start + self.template.count(PLACEHOLDER))

    def encode(self, power: str) -> str:
        """The message that stands for ``power``."""
        if power not in self.powers:
            raise BlindError(f"power {power!r} is not in the format's powers {list(self.powers)!r}")
        slot = self._slot
        number = str(self.powers.index(power)).zfill(slot.stop - slot.start)
        return self.template[: slot.start] + number + self.template[slot.stop :]

    def decode(self, message: str) -> str | None:
        """The power a message stands for, or ``None`` if it does not follow the format."""
        check_digits(message, self.length, what="message")
        slot = self._slot
        outside = message[: slot.start] + message[slot.stop :]
        if outside != self.template[: slot.start] + self.template[slot.stop :]:
            return None
        index = int(message[slot])
        return self.powers[index] if index < len(self.powers) else None


def choose_format(powers: Sequence[str], verification_digits: int, rng: random.Random) -> MessageFormat:
    """A fresh format: random verification digits around a run of ``x`` at a random place.

    More verification digits make it less likely that a wrong blind yields a valid-looking
    message (chance about 10**-verification_digits per try)."""
    width = len(str(max(len(powers) - 1, 0)))
    digits = random_digits(verification_digits, rng)
    place = rng.randrange(verification_digits + 1)
    return MessageFormat(digits[:place] + PLACEHOLDER * width + digits[place:], tuple(powers))


def try_blinds(message: str, blinds: Iterable[str], fmt: MessageFormat) -> str | None:
    """The power hidden in ``message``: subtract each published blind until the format shows.

    ``None`` when no blind fits; :class:`BlindError` when two blinds reveal different powers
    (then the message is ambiguous and the GM must be told)."""
    check_digits(message, fmt.length, what="message")
    found: dict[str, str] = {}
    for blind in blinds:
        check_digits(blind, fmt.length, what="blind")
        power = fmt.decode(sub_digits(message, blind))
        if power is not None:
            found.setdefault(power, blind)
    if len(found) > 1:
        raise BlindError(f"message {message!r} is ambiguous: blinds {sorted(found.values())} give {sorted(found)}")
    return next(iter(found), None)


def matching_blind(message: str, blinds: Iterable[str], fmt: MessageFormat) -> str | None:
    """The first blind that reveals a power in ``message`` (for showing the working)."""
    for blind in blinds:
        if fmt.decode(sub_digits(check_digits(message, fmt.length, what="message"), blind)) is not None:
            return blind
    return None
