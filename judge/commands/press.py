"""PRESS and BROADCAST: relayed by the judge from the sender's power name, never showing
anyone's address, as far as the game's RULEs allow.

Rules: NO_PRESS and GUNBOAT (until the game ends) allow press to the master only;
PUBLIC_PRESS allows broadcasts and press to the master; grey (anonymous) press needs
RULE GREY_PRESS; after the deadline the late-press limits of judge.turns.press apply.
Observers may write to the master only.  The master may always press anyone.  Machine
players (DAIDE bots) never get mail: the press lines they can read go to them as DAIDE
(``PressLog.daide``, relayed by the DAIDE edge), and the reply names them as it names anyone.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from daide.messages import to_text
from judge import machine_press
from judge.commands.daide_ports import MACHINES
from judge.press_english import ACCEPTED_FORMS, UnreadablePress, is_press_line, read_line
from judge.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.commands.context import MailContext, SignedOn
from judge.mail import CommandRefused
from judge.store.queries import (
    as_utc,
    has_rule,
    master_of,
    observers,
    player_of,
    rule_names,
    variant_of,
)
from judge.phases.turnstate import late_powers
from judge.lifecycle import ACTIVE, ENDED, before_start
from judge.store.models_game import Game, Membership, PressLog
from judge.turns import late_press_refusal, rules_refusal
from judge.turns.press import MASTER
from mailcmds import Press, PowerListError, resolve_powers
from mailcmds.powers import OBSERVERS


def _recipients(game: Game, who: SignedOn, command: Press) -> tuple[str, ...]:
    """The names addressed (powers, MASTER, OBSERVERS), without the sender."""
    variant = variant_of(game)
    try:
        if command.recipients is not None:
            named = resolve_powers(command.recipients, variant.powers, allow_master=True, allow_observers=True)
        else:  # TO ALL BUT ...
            left_out = resolve_powers(command.excluded, variant.powers, allow_master=True, allow_observers=True)
            named = tuple(p.name for p in variant.powers if p.name not in left_out)
    except PowerListError as problem:
        raise CommandRefused(str(problem)) from None
    own = who.label
    return tuple(name for name in named if name != own)


def _refusal_by_rules(ctx: MailContext, game: Game, who: SignedOn, command: Press,
                      recipients: tuple[str, ...]) -> str | None:
    if who.is_master:
        return None
    only_master = not command.broadcast and set(recipients) <= {MASTER}
    if who.is_observer:
        return None if only_master else "observers may send press only to the master (PRESS TO M)"
    if before_start(game.status):
        return None if only_master else "press between players starts when the game has started"
    refusal = rules_refusal(rule_names(game), to_master_only=only_master, broadcast=command.broadcast,
                            grey=command.grey, ended=game.status == ENDED)
    if refusal is not None:
        return refusal
    if game.status == ACTIVE and game.deadline is not None and game.position is not None and who.power:
        late = late_powers(ctx.session, game, ctx.now)  # active powers only, as the scheduler counts them
        return late_press_refusal(
            who.power, frozenset(recipients), broadcast=command.broadcast, late=late, now=ctx.now,
            deadline=as_utc(game.deadline), rules=frozenset(r.split()[0] for r in (game.rules or [])),
        )
    return None


def _members_for(session: Session, game: Game, name: str) -> list[Membership]:
    if name == MASTER:
        master = master_of(session, game)
        return [master] if master else []
    if name == OBSERVERS:
        return observers(session, game)
    player = player_of(session, game, name)
    return [player] if player else []


def press(ctx: MailContext, command: Press) -> None:
    who = ctx.require_signon()
    game = who.game
    recipients = () if command.broadcast else _recipients(game, who, command)
    if not command.broadcast and not recipients:
        raise CommandRefused("the press has nobody to go to (you cannot press only yourself)")
    refusal = _refusal_by_rules(ctx, game, who, command, recipients)
    if refusal is not None:
        raise CommandRefused(refusal)
    sender = "an anonymous power (grey press)" if command.grey else who.label
    body = render("press.j2", game=game.name, sender=sender, recipients=list(recipients),
                  broadcast=command.broadcast, body=command.body.rstrip("\n"), phase=game.phase,
                  reply_to=None if command.grey else (who.power or ("M" if who.is_master else None)))
    subject = f"{game.name}: {'broadcast' if command.broadcast else 'press'} from {sender}"
    if command.broadcast:
        mails = broadcast(ctx.session, game, ctx.judge, subject=subject, body=body, kind="press",
                          exclude=[ctx.sender, who.membership.address])
        undelivered: list[str] = []
    else:
        mails, undelivered = [], []
        seen: set[str] = {who.membership.address.lower()}
        for name in recipients:
            targets = _members_for(ctx.session, game, name)
            if not targets:
                undelivered.append(name)
            for member in targets:  # a machine gets the press as DAIDE (below), never by mail
                if member.address.lower() in seen or not machine_press.by_mail(member):
                    continue
                seen.add(member.address.lower())
                mails.append(to_member(game, ctx.judge, member, subject=subject, body=body, kind="press"))
    ctx.send(mails)
    ctx.session.add(PressLog(
        game_id=game.id, phase=game.phase, sender=who.label, membership_id=who.membership.id,
        recipients=list(recipients), grey=command.grey, broadcast=command.broadcast,
        subject=subject[:998], body=command.body, sent_at=ctx.now,
        daide=_for_machines(ctx, game, who, command, recipients) or None,
    ))
    to = "everyone in the game" if command.broadcast else ", ".join(r for r in recipients if r not in undelivered)
    message = f"press sent to {to or 'nobody'}" + (" (grey)" if command.grey else "")
    if undelivered:
        message += f"; not delivered to {', '.join(undelivered)} (no player)"
    ctx.done(command, message)
    if not command.quiet:
        ctx.add_block(f"Your press to {to or 'nobody'} ({game.name}):\n" + command.body.rstrip("\n"))


def _for_machines(ctx: MailContext, game: Game, who: SignedOn, command: Press, recipients: tuple[str, ...]) -> list[str]:
    """The press lines of a player's press read into DAIDE (text form) for the machine players
    among its recipients, in a game where machines talk (RULE MACHINES and PRESS_LEVEL); each
    press line that cannot be read is quoted with the accepted forms, the others still count.
    Read whoever the recipients are, so the reply never tells which powers are machines."""
    if not who.power or command.grey or not has_rule(game, MACHINES) or machine_press.press_level(game) < 10:
        return []
    powers = tuple(p.name for p in variant_of(game).powers if p.name != who.power) if command.broadcast else \
        tuple(r for r in recipients if r not in (MASTER, OBSERVERS))
    if not powers:
        return []
    talk = machine_press.conversation(ctx.session, game, who.power, powers)
    texts = []
    for line in command.lines:
        if not is_press_line(line.text):
            continue
        try:
            texts.append(to_text(read_line(line.text.strip(), talk)))
        except UnreadablePress as problem:
            ctx.failed(line, f"press line not read ({problem}); machine players read {ACCEPTED_FORMS}")
    return texts
