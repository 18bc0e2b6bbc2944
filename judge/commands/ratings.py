"""RATINGS: the judge's rating lists (press and gunboat games apart) and the sender's own
record, dedication and rating history (judge/standing; README "Ratings")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from judge.standing.facts import Pool
from judge.standing.reading import history, player_keys, shown_name, top
from judge.standing.records import record_of
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count

HELP_ORDER = 15  # after LIST, SUMMARY and HISTORY among the information requests

DEFAULT_COUNT = 20
MOST = 100  # the longest list one mail asks for
HISTORY_ROWS = 30


@dataclass(frozen=True, slots=True)
class Ratings(Command):
    """``RATINGS [PRESS|GUNBOAT] [n]``: the top ``n`` of one pool (both without one), and
    the sender's own record and rating history."""

    answered_once: ClassVar[bool] = True
    pool: Pool | None = None
    count: int = DEFAULT_COUNT


_SYNTAX = "nothing, PRESS or GUNBOAT, and how many players to list (1 to 100)"


def _ratings(ctx: ParseContext, line: CommandLine) -> Ratings:
    pool: Pool | None = None
    count = DEFAULT_COUNT
    for word in expect_count(line, 0, 2, _SYNTAX):
        if word.upper() in (p.name for p in Pool) and pool is None:
            pool = Pool[word.upper()]
        elif word.isdigit() and 1 <= int(word) <= MOST:
            count = int(word)
        else:
            raise line.fail(f"'{word}' is not understood here: RATINGS takes {_SYNTAX}")
    return Ratings(pool, count, source=line.source)


def ratings(ctx: MailContext, command: Ratings) -> None:
    pools = [command.pool] if command.pool is not None else list(Pool)
    blocks = []
    for pool in pools:
        rows = top(ctx.session, pool, command.count)
        lines = [f"{pool.value.capitalize()} games: the top {command.count} (rating = mu - 3 sigma, "
                 f"0 for a newcomer)"]
        lines += [f"{rank:4d}. {row.rating:7.1f}  {shown_name(row.player)}" for rank, row in enumerate(rows, 1)]
        if not rows:
            lines.append("      no rated game yet")
        blocks.append("\n".join(lines))
    addresses, keys = player_keys(ctx.session, ctx.sender)
    record = record_of(ctx.session, addresses)
    own = [f"Your record ({keys[0]}):", *(f"  {line}" for line in record.lines())]
    past = history(ctx.session, keys, HISTORY_ROWS)
    if past:
        own.append(f"Your rating history (the last {HISTORY_ROWS} rated games, oldest first):")
        own += [f"  {row.rated_at:%Y-%m-%d}  {row.pool:7}  {row.game:16} {row.result:10} {row.rating:7.1f}"
                for row in past]
    else:
        own.append("You have no rated game yet.")
    ctx.add_block("\n\n".join(blocks + ["\n".join(own)]))
    ctx.done(command, "ratings below" + (f" ({command.pool.value} games)" if command.pool else ""))


VERBS = (
    Verb(("RATINGS",), "RATINGS [PRESS|GUNBOAT] [n]",
         "the top n players by rating (press and gunboat games rated apart; default 20), and your own "
         "record, dedication and rating history", _ratings, in_subject=True,
         help=(("start", "RATINGS [PRESS|GUNBOAT] [n]", "the best players, and your own record and ratings"),)),
)

HANDLERS = {Ratings: Handler(ratings)}
