"""COMMIT, COMMIT SHA256 and REVEAL: one verb, three commit/reveal flows.

A player's commitment or reveal belongs to the first flow that claims it, in this order:
1. an open lottery of the player's game (fair power assignment: a lottery number);
2. a preference list of a game with RULE PREFERENCES whose lists are still sealed;
3. sealed orders (RULE SEALED), which need a sign-on.
Each flow's function answers whether it took the command (True) or refuses it with
CommandRefused; the order here is the only place that decides.  ``REVEAL who@game`` speaks
for that member without SIGNON (``speaking_for``).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from judge.commands import fair_assign, fair_lottery, sealed
from judge.commands.context import MailContext, SignedOn
from judge.commands.fair_players import numbered_players, numbered_reserves
from judge.mailio.inbound import CommandRefused
from judge.store.queries import find_game, players
from judge.commands.commitments import Commit, CommitSha256, Reveal, RevealNumber
from judge.commands.handler import Handler


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
    with speaking_for(ctx, command.target):
        if fair_lottery.lottery_reveal_file(ctx, command) or fair_assign.reveal_list(ctx, command):
            return
        ctx.require_signon()
        sealed.reveal(ctx, command)


def reveal_number(ctx: MailContext, command: RevealNumber) -> None:
    """``REVEAL n`` is only ever a lottery number."""
    with speaking_for(ctx, command.target):
        fair_lottery.lottery_reveal_number(ctx, command)


@contextmanager
def speaking_for(ctx: MailContext, target: str | None) -> Iterator[None]:
    """``REVEAL who@game`` without SIGNON: the reveal is checked against that member's
    commitment, which only its author can match, so anyone may pass it on (a player's reveal
    posted to the game's list reaches the judge this way, or is forwarded).  The sign-on
    lasts for this one command; a reveal that does not match is refused and not kept."""
    if target is None:
        yield
        return
    who, _, name = target.partition("@")
    game = find_game(ctx.session, name)
    member = next((m for label, m in [*numbered_players(ctx.session, game), *numbered_reserves(ctx.session, game)]
                   if label.lower() == who), None)
    if member is None:
        member = next((m for m in players(ctx.session, game) if (m.power or "").lower() == who), None)
    if member is None:
        raise CommandRefused(f"REVEAL {target}: game '{game.name}' has no player or power '{who}' (write the power, "
                             "e.g. france@game, or the player number, e.g. p3@game)")
    before = ctx.signed_on
    ctx.signed_on = SignedOn(game, member, ctx.signed_on.line if ctx.signed_on else 0)
    try:
        yield
    finally:
        ctx.signed_on = before


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Commit: Handler(commit),
    CommitSha256: Handler(commit),
    Reveal: Handler(reveal),
    RevealNumber: Handler(reveal_number),
}
