"""Which function answers which command: the one explicit table.

Every command class that ``mailcmds`` produces has exactly one row here (a test checks it),
with who may give it; reading the table tells what runs for a verb.  COMMIT and REVEAL
serve three flows (an open lottery, a preference list, sealed orders): the routing
functions in judge/commands/commit_reveal.py choose between them, in plain code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

import mailcmds as m
from judge.commands import (
    bot_seat, commit_reveal, create, draw, fair_assign, fair_blind, fair_escrow, info, join, keys, master, orders, press,
    settings, signon, unsubscribe,
)
from judge.commands.context import MailContext


class Needs(enum.Enum):
    """Who may give a command: anyone, anyone signed on, a player, the master (checked
    before the handler runs, so the refusal reads the same for every command)."""

    ANYONE = "anyone"
    SIGNON = "signon"
    PLAYER = "player"
    MASTER = "master"


@dataclass(frozen=True)
class Handler:
    run: Callable[[MailContext, Any], None]
    needs: Needs = Needs.ANYONE


_ANYONE, _SIGNON, _PLAYER, _MASTER = Needs.ANYONE, Needs.SIGNON, Needs.PLAYER, Needs.MASTER

HANDLERS: Mapping[type[m.Command], Handler] = MappingProxyType({
    # signon, join (mailcmds/signon.py, join.py)
    m.Signon: Handler(signon.signon),
    m.Signoff: Handler(signon.signoff),
    m.Join: Handler(join.join),
    m.Observe: Handler(join.observe),
    m.Takeover: Handler(join.takeover),
    m.Resign: Handler(join.resign),  # run last, by dispatch.run_deferred
    m.Unsubscribe: Handler(unsubscribe.unsubscribe),
    # orders, press, settings (mailcmds/orders.py, press.py, settings.py)
    m.OrderLines: Handler(orders.order_lines, _SIGNON),
    m.Clear: Handler(orders.clear, _SIGNON),
    m.Press: Handler(press.press, _SIGNON),
    m.SetWait: Handler(settings.set_wait, _PLAYER),
    m.SetPassword: Handler(settings.set_password, _SIGNON),
    m.SetAddress: Handler(settings.set_address, _SIGNON),
    m.SetAbsence: Handler(settings.set_absence, _PLAYER),
    m.SetZone: Handler(settings.set_zone, _SIGNON),
    # draws and concessions (mailcmds/draw.py)
    m.SetDraw: Handler(draw.set_draw, _PLAYER),
    m.SetNoDraw: Handler(draw.set_no_draw, _PLAYER),
    m.SetConcede: Handler(draw.set_concede, _PLAYER),
    m.SetNoConcede: Handler(draw.set_no_concede, _PLAYER),
    # information (mailcmds/info.py)
    m.ListGames: Handler(info.list_games),
    m.Summary: Handler(info.summary),
    m.History: Handler(info.history),
    m.MapPicture: Handler(info.map_picture),  # or, from a signed-on master naming a map, create.set_map
    m.Help: Handler(info.help_page),
    m.GetKey: Handler(keys.get_key),
    # keys and sealed orders (mailcmds/sealed.py)
    m.SetKey: Handler(keys.set_key),
    m.Commit: Handler(commit_reveal.commit),
    m.CommitSha256: Handler(commit_reveal.commit),
    m.Reveal: Handler(commit_reveal.reveal),
    # fair power assignment (mailcmds/fair.py)
    m.SetPreference: Handler(fair_assign.set_preference, _SIGNON),
    m.RevealNumber: Handler(commit_reveal.reveal_number),
    m.EscrowDeposit: Handler(fair_escrow.deposit, _PLAYER),
    m.EscrowPeel: Handler(fair_escrow.peel, _PLAYER),
    m.ShuffledList: Handler(fair_blind.shuffled),
    m.BlindList: Handler(fair_blind.blinds_published),
    m.BlindCollected: Handler(fair_blind.collected),
    m.BlindEchoes: Handler(fair_blind.confirmed),
    m.BlindedMessage: Handler(fair_blind.for_the_witness),
    m.BlindFactor: Handler(fair_blind.for_the_witness),
    m.BlindReceipt: Handler(fair_blind.for_the_witness),
    m.BlindShuffle: Handler(fair_blind.for_the_witness),
    m.BlindConfirm: Handler(fair_blind.for_the_witness),
    m.BlindFormat: Handler(fair_blind.for_the_witness),
    # game creation and status lines (mailcmds/create.py)
    m.Create: Handler(create.create),
    m.MapStatus: Handler(create.set_map, _MASTER),
    m.RuleStatus: Handler(create.set_rule, _MASTER),
    m.TimingStatus: Handler(create.set_timing, _MASTER),
    m.DeadlineStatus: Handler(create.set_deadline, _MASTER),
    m.ZoneStatus: Handler(create.set_zone, _MASTER),
    m.PrivateStatus: Handler(create.set_private, _MASTER),
    m.DescStatus: Handler(create.set_description, _MASTER),
    m.ListStatus: Handler(create.set_list, _MASTER),
    m.WitnessStatus: Handler(fair_blind.set_witness, _MASTER),
    # the master (mailcmds/master.py)
    m.Form: Handler(master.form, _MASTER),
    m.Pause: Handler(master.pause, _MASTER),
    m.Resume: Handler(master.resume, _MASTER),
    m.Terminate: Handler(master.terminate, _MASTER),
    m.Process: Handler(master.process, _MASTER),
    m.Preview: Handler(master.preview, _MASTER),
    m.Rollback: Handler(master.rollback, _MASTER),
    m.SetDeadline: Handler(create.set_deadline, _MASTER),
    m.Eject: Handler(master.eject, _MASTER),
    m.Dummy: Handler(master.dummy, _MASTER),
    m.Revive: Handler(master.revive, _MASTER),
    m.SeatBot: Handler(bot_seat.seat_bot, _MASTER),
})


def handler_for(kind: type[m.Command]) -> Handler:
    """The row of a command class; a class with no row is a wiring mistake (KeyError)."""
    return HANDLERS[kind]
