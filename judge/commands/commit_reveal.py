"""COMMIT, COMMIT SHA256 and REVEAL: one verb, three commit/reveal flows.

A player's commitment or reveal belongs to the first flow that claims it, in this order:
1. an open lottery of the player's game (fair power assignment: a lottery number);
2. a preference list of a game with RULE PREFERENCES whose lists are still sealed;
3. sealed orders (RULE SEALED), which need a sign-on.
Each flow's function answers whether it took the command (True) or refuses it with
CommandRefused; the order here is the only place that decides.
"""

from __future__ import annotations

from judge.commands import fair_assign, fair_lottery, sealed
from judge.commands.context import MailContext
from mailcmds import Commit, CommitSha256, Reveal, RevealNumber


def commit(ctx: MailContext, command: Commit | CommitSha256) -> None:
    if isinstance(command, Commit):
        taken = fair_lottery.lottery_commit(ctx, command)
    else:
        taken = fair_lottery.lottery_commit_sha256(ctx, command)
    if taken or fair_assign.commit_list(ctx, command):
        return
    ctx.require_signon()
    if isinstance(command, Commit):
        sealed.commit(ctx, command)
    else:
        sealed.commit_sha256(ctx, command)


def reveal(ctx: MailContext, command: Reveal) -> None:
    if fair_lottery.lottery_reveal_file(ctx, command) or fair_assign.reveal_list(ctx, command):
        return
    ctx.require_signon()
    sealed.reveal(ctx, command)


def reveal_number(ctx: MailContext, command: RevealNumber) -> None:
    """``REVEAL n`` is only ever a lottery number."""
    fair_lottery.lottery_reveal_number(ctx, command)
