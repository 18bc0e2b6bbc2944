"""The command dispatcher's table: command class -> handler.

A handler module registers its functions with the decorator::

    from judge.services.registry import handles, Needs

    @handles(SetDraw, needs=Needs.PLAYER)
    def set_draw(ctx: MailContext, command: SetDraw) -> None:
        ...                              # raise CommandRefused("...") to refuse
        ctx.done(command, "draw vote recorded")

and lists itself in ``judge.services.HANDLER_MODULES``.  ``needs`` is checked before the
handler runs, so the refusal for "not signed on" / "not the master" reads the same for
every command.  Command classes without a handler get the line from
judge/services/unavailable.py ("... not enabled on this judge yet").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from mailcmds import Command

if TYPE_CHECKING:
    from judge.services.context import MailContext

C = TypeVar("C", bound=Command)
Handler = Callable[["MailContext", Any], None]


class Needs(enum.Enum):
    """Who may give a command: anyone, anyone signed on, a player, the master."""

    ANYONE = "anyone"
    SIGNON = "signon"
    PLAYER = "player"
    MASTER = "master"


@dataclass(frozen=True)
class Registered:
    handler: Handler
    needs: Needs


_HANDLERS: dict[type[Command], Registered] = {}


class DuplicateHandler(RuntimeError):
    """Two handlers for one command class: a wiring mistake, found at import time."""


def handles(*kinds: type[C], needs: Needs = Needs.ANYONE) -> Callable[[Callable[["MailContext", C], None]], Callable[["MailContext", C], None]]:
    """Register the decorated function as the handler of the given command classes."""
    if not kinds:
        raise TypeError("handles() needs at least one command class")

    def register(function: Callable[["MailContext", C], None]) -> Callable[["MailContext", C], None]:
        for kind in kinds:
            known = _HANDLERS.get(kind)
            if known is not None and known.handler is not function:
                raise DuplicateHandler(
                    f"{kind.__name__} already handled by {known.handler.__module__}.{known.handler.__qualname__}"
                )
            _HANDLERS[kind] = Registered(function, needs)
        return function

    return register


def handler_for(kind: type[Command]) -> Registered | None:
    """The handler of a command class (or of its nearest registered base class)."""
    for cls in kind.__mro__:
        found = _HANDLERS.get(cls)  # type: ignore[arg-type]
        if found is not None:
            return found
    return None


#: Interceptors: functions tried before a command's handler; one that returns True has
#: done the command (e.g. COMMIT/REVEAL while a power-assignment lottery is open).
Interceptor = Callable[["MailContext", Any], bool]
_INTERCEPTORS: dict[type[Command], list[Interceptor]] = {}


def intercepts(*kinds: type[Command]) -> Callable[[Interceptor], Interceptor]:
    """Register the decorated function to be tried before the handler of ``kinds``."""

    def register(function: Interceptor) -> Interceptor:
        for kind in kinds:
            known = _INTERCEPTORS.setdefault(kind, [])
            if function not in known:
                known.append(function)
        return function

    return register


def interceptors_for(kind: type[Command]) -> tuple[Interceptor, ...]:
    return tuple(_INTERCEPTORS.get(kind, ()))


def registered() -> dict[type[Command], Registered]:
    """A copy of the table (for tests and the report of what is not enabled)."""
    return dict(_HANDLERS)
