"""What a command module declares beside its verbs: the handler of each command class,
and who may give the command (checked by the dispatcher before the handler runs, so the
refusal reads the same for every command and every door)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable

from judge.commands.context import MailContext


class Needs(enum.Enum):
    """Who may give a command: anyone, anyone signed on, a player, the master."""

    ANYONE = "anyone"
    SIGNON = "signon"
    PLAYER = "player"
    MASTER = "master"


@dataclass(frozen=True)
class Handler:
    """``run(ctx, command)`` carries the command out or raises ``CommandRefused``."""

    run: Callable[[MailContext, Any], None]
    needs: Needs = Needs.ANYONE
