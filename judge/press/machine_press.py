"""Press with machine players in the store: the game's DAIDE press level, the same press
rules as mail press, the record of every press a machine sends (``PressLog``, like mail
press) with the mail that brings it to human recipients in English, and the press players
write to machines (read at PRESS time into ``PressLog.daide``) for the DAIDE edge to relay.

A machine's press is relayed by the DAIDE server straight to the machines connected.  The
judge's own bot at a seat the master gave it (SEAT ... BOT) negotiates: press to it is a job
for a bot process (``bot_hears``; judge/phases/bot_moves.py), which reads the seat's
conversation (``talk_of``), thinks outside every transaction (judge/negotiation/negotiator.py) and
speaks through ``bot_said``: recorded as a machine's press is, under the same press rules,
mailed to humans, relayed to DAIDE machines.  A power in civil disorder under RULE CD_BOT
does not talk.  Nothing here says which powers are machines to a player.
"""

from __future__ import annotations

from datetime import datetime
from typing import Mapping, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from adjudicator.api import prepare
from adjudicator.types import Position
from daide.messages import Message, from_text, to_text
from daide.press import Grammar
from daide.tokens import TokenTable
from judge.config import JudgeSettings
from judge.mailio.outgoing import MACHINE_DOMAIN, OutgoingMail
from judge.negotiation.negotiator import Said, Talk
from judge.phases.bot_moves import request_press_answer
from judge.phases.bot_seats import is_bot_seat
from judge.phases.turnstate import late_powers
from judge.press.english import Conversation, in_english
from judge.publish.broadcast import to_member
from judge.mailio.render import render
from judge.lifecycle import ACTIVE, ENDED
from judge.store.models_game import Game, Membership, PressLog
from judge.store.queries import as_utc, player_of, players, position_of, rule_names, rules_of, variant_of
from judge.turns import late_press_refusal, rules_refusal
from judge.turns.draws import NO_DIAS

PRESS_LEVEL = "PRESS_LEVEL"


def press_level(game: Game) -> int:
    """RULE PRESS_LEVEL's value; 0 while the game's rules allow no press between players."""
    if game.status != ENDED and rule_names(game) & {"NO_PRESS", "GUNBOAT"}:
        return 0
    for rule in rules_of(game):
        name, _, value = rule.partition(" ")
        if name == PRESS_LEVEL and value.strip().isdigit():
            return int(value)
    return 0


def partial_draws(game: Game) -> bool:
    """RULE NO_DIAS: draws of some survivors (HLO's PDA; DRW (powers) in press)."""
    return NO_DIAS in rule_names(game)


def grammar_of(game: Game) -> Grammar:
    return Grammar(TokenTable.for_variant(variant_of(game)), press_level(game), partial_draws(game))


def has_bot_seat(session: Session, game: Game) -> bool:
    """The judge's bot plays a seat of the game (SEAT ... BOT): it reads press."""
    return any(is_bot_seat(m) for m in players(session, game))


def reads_press(member: Membership) -> bool:
    """A DAIDE machine reading press on its connection (the judge's own bot at a seat reads it through
    bot jobs instead: ``bot_hears``)."""
    return member.address.endswith("@" + MACHINE_DOMAIN) and not is_bot_seat(member)


def by_mail(member: Membership) -> bool:
    return not member.address.endswith("@" + MACHINE_DOMAIN)


def refusal(session: Session, game: Game, sender: str, recipients: frozenset[str], now: datetime) -> str | None:
    """Why the game's press rules forbid a machine's press now (the rules mail press obeys)."""
    others = {m.power for m in players(session, game) if m.power and m.power != sender}
    found = rules_refusal(rule_names(game), to_master_only=False, broadcast=recipients >= others, grey=False,
                          ended=game.status == ENDED)
    if found is not None or game.status != ACTIVE or game.deadline is None:
        return found
    return late_press_refusal(sender, recipients, broadcast=recipients >= others,
                              late=late_powers(session, game, now), now=now, deadline=as_utc(game.deadline),
                              rules=rule_names(game))


def eliminated(position: Position, power: str) -> bool:
    """Out of the game: no centre and no unit left."""
    return not position.centers.get(power) and not any(u.power == power for u in position.units)


def unreachable(session: Session, game: Game, recipients: frozenset[str],
                connected: Mapping[int, bool]) -> tuple[str, str] | None:
    """("OUT", power) for an eliminated recipient; ("CCD", power) for one without a player or a
    machine that is away (``connected``: membership id -> connected now)."""
    position = position_of(game)
    for power in sorted(recipients):
        if eliminated(position, power):
            return ("OUT", power)
    for power in sorted(recipients):
        member = player_of(session, game, power)
        if member is None or (reads_press(member) and connected.get(member.id) is False):
            return ("CCD", power)
    return None


def record(session: Session, game: Game, judge: JudgeSettings, now: datetime, sender: str,
           recipients: Sequence[str], press: Message) -> list[OutgoingMail]:
    """A machine's press, relayed: recorded as mail press is, and the mail that brings it to
    the recipients who play by mail (in English, the DAIDE text beside it)."""
    table = TokenTable.for_variant(variant_of(game))
    text = to_text(press)
    english = f"{sender} {in_english(press, table)}"
    hint = ("Answer with PRESS TO {0} and a line ACCEPT or REJECT (or DAIDE press text), then ENDPRESS."
            .format(sender) if press[:1] == ("PRP",) else "")
    body_text = f"{english}\n\nDAIDE: {text}" + (f"\n\n{hint}" if hint else "")
    subject = f"{game.name}: press from {sender}"
    member = player_of(session, game, sender)
    row = PressLog(game_id=game.id, phase=game.phase, sender=sender, membership_id=member.id if member else None,
                   recipients=list(recipients), grey=False, broadcast=False, subject=subject, body=body_text,
                   sent_at=now, daide=[text])
    session.add(row)
    bot_hears(session, game, row, now)
    body = render("press.j2", game=game.name, sender=sender, recipients=list(recipients), broadcast=False,
                  body=body_text, phase=game.phase, reply_to=sender)
    mails = []
    for power in recipients:
        target = player_of(session, game, power)
        if target is not None and by_mail(target):
            mails.append(to_member(game, judge, target, subject=subject, body=body, kind="press"))
    return mails


def for_machines(session: Session, game: Game, after: int) -> list[tuple[int, str, tuple[str, ...], Message]]:
    """(row id, sender, recipients, press) of the press players wrote to machines since row
    ``after``, one entry a DAIDE message, oldest first."""
    rows = session.scalars(select(PressLog).where(PressLog.game_id == game.id, PressLog.id > after)
                           .order_by(PressLog.id))
    found = []
    for row in rows:
        if not row.daide:  # press between players only (a JSON null reads as None too)
            continue
        member = session.get(Membership, row.membership_id) if row.membership_id else None
        if member is None or not (by_mail(member) or is_bot_seat(member)):
            continue  # a DAIDE machine's own press went out through the server already
        recipients = tuple(p.name for p in variant_of(game).powers if p.name != row.sender) if row.broadcast \
            else tuple(row.recipients)
        for text in row.daide or ():
            found.append((row.id, row.sender, recipients, from_text(str(text))))
    return found


def last_press_id(session: Session, game: Game) -> int:
    return max(session.scalars(select(PressLog.id).where(PressLog.game_id == game.id)), default=0)


def conversation(session: Session, game: Game, sender: str, recipients: Sequence[str]) -> Conversation:
    """What reading ``sender``'s press lines to ``recipients`` needs (the latest proposals each way)."""
    received = proposed = None
    rows = session.scalars(select(PressLog).where(PressLog.game_id == game.id).order_by(PressLog.id))
    for row in rows:
        proposals = [str(t) for t in row.daide or () if str(t).startswith("PRP")]
        if not proposals:
            continue
        if row.sender in recipients and sender in row.recipients:
            received = proposals[-1]
        elif row.sender == sender and set(recipients) & set(row.recipients):
            proposed = proposals[-1]
    variant = variant_of(game)
    board = prepare(variant, position_of(game))
    return Conversation(grammar_of(game), board, sender, tuple(recipients), received, proposed)


# -- the judge's bot at a seat (SEAT ... BOT) at the table

def _powers_of(game: Game, row: PressLog) -> tuple[str, ...]:
    """The powers a press row went to (a broadcast: every other power)."""
    if row.broadcast:
        return tuple(p.name for p in variant_of(game).powers if p.name != row.sender)
    return tuple(str(r) for r in row.recipients)


def bot_hears(session: Session, game: Game, row: PressLog, now: datetime) -> int:
    """A job for each seat of the judge's bot among a press row's recipients, to answer its
    DAIDE press in a bot process (never here, in the sender's transaction); how many."""
    if not row.daide or row.grey or press_level(game) < 10:
        return 0
    asked = 0
    for power in _powers_of(game, row):
        member = player_of(session, game, power)
        if member is not None and is_bot_seat(member):
            if row.id is None:
                session.flush()  # the job names the row
            asked += request_press_answer(session, game, power, row.id, now)
    return asked


def talk_of(session: Session, game: Game, power: str, press_id: int | None) -> Talk | None:
    """What the bot at ``power``'s seat needs to negotiate: its conversation before row
    ``press_id`` and that row's press (None: a phase's opening, the whole record); None when
    the game's press rules give it no voice now."""
    level = press_level(game)
    if level < 10:
        return None
    query = select(PressLog).where(PressLog.game_id == game.id, PressLog.daide.is_not(None),
                                   PressLog.grey.is_(False)).order_by(PressLog.id)
    if press_id is not None:
        query = query.where(PressLog.id <= press_id)
    record: list[Said] = []
    heard: list[Said] = []
    for row in session.scalars(query):
        recipients = _powers_of(game, row)
        if row.sender != power and power not in recipients:
            continue
        said = [Said(row.sender, recipients, str(text)) for text in row.daide or ()]
        (heard if row.id == press_id else record).extend(said)
    return Talk(level, tuple(record), tuple(heard))


def bot_said(session: Session, game: Game, judge: JudgeSettings, now: datetime, power: str,
             outgoing: Sequence[tuple[tuple[str, ...], Message]]) -> list[OutgoingMail]:
    """The bot's press from ``power``'s seat, each message recorded and delivered as a
    machine's is (``record``) where the game's press rules allow it now; the mails to send."""
    mails: list[OutgoingMail] = []
    for recipients, press in outgoing:
        if refusal(session, game, power, frozenset(recipients), now) is not None:
            continue
        mails.extend(record(session, game, judge, now, power, recipients, press))
    return mails
