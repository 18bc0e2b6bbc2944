"""PRESS and BROADCAST: relayed by the judge from the sender's power name, never showing
anyone's address, as far as the game's RULEs allow.

Rules: NO_PRESS and GUNBOAT (until the game ends) allow press to the master only;
PUBLIC_PRESS allows broadcasts and press to the master; grey (anonymous) press needs
RULE GREY_PRESS; after the deadline the late-press limits of judge.turns.press apply.
Observers may write to the master only.  The master may always press anyone.  Machine
players (DAIDE bots, the judge's bot at a seat) never get mail: the press lines they can read
go to them as DAIDE (``PressLog.daide``, relayed by the DAIDE edge, answered by a bot process
for the judge's bot), and the reply names them as it names anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
import re

from sqlalchemy.orm import Session

from daide.messages import to_text
from judge.press import machine_press
from judge.commands.daide_ports import MACHINES
from judge.press.english import ACCEPTED_FORMS, UnreadablePress, is_press_line, read_line
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.commands.context import MailContext, SignedOn
from judge.mailio.inbound import CommandRefused
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
from mailcmds import PowerListError, resolve_powers
from mailcmds.powers import OBSERVERS
from mailcmds.model import Command, SourceLine
from mailcmds.orders import reads_as_order
from mailcmds.syntax import CommandLine, ParseContext, Verb, strip_comment
from mailcmds.values import split_tokens
from judge.commands.handler import Handler, Needs


HELP_ORDER = 55  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class Press(Command):
    """A press message.  ``broadcast``: to everyone (BROADCAST, PRESS with no TO, PRESS TO
    ALL); else ``recipients`` names who gets it, or it goes to all but ``excluded``
    (``recipients`` is then ``None``).  ``quiet``: no receipt copy to the sender."""

    recipients: tuple[str, ...] | None
    grey: bool
    broadcast: bool
    body: str
    excluded: tuple[str, ...] = ()
    quiet: bool = False
    lines: tuple[SourceLine, ...] = ()


_OPTIONS = {"GREY", "GRAY", "WHITE", "QUIET", "FAKE", "FROM", "TO"}


_TOKEN_RE = re.compile(r"[A-Z][A-Z0-9_#\-]*")


_PRESS_ENDS = ("ENDPRESS", "ENDBROADCAST")


def stops_body(line: SourceLine) -> bool:
    """A SIGNOFF line, or a ``SIGNON id password`` line: a press (or reveal) whose
    ENDPRESS was forgotten must not carry the next SIGNON's password to other players.
    (JOIN, CREATE and the like are ordinary English words and do not end a press.)"""
    words = strip_comment(line.text).split()
    if not words:
        return False
    first = words[0].upper()
    return (first == "SIGNOFF" and len(words) == 1) or (first == "SIGNON" and len(words) == 3)


def _read_options(line: CommandLine, broadcast_verb: bool) -> tuple[tuple[str, ...] | None, tuple[str, ...], bool, bool, bool]:
    words = [w.upper() for w in line.args]
    recipients: list[str] | None = None
    excluded: list[str] = []
    grey = quiet = all_but = False
    grey_set = False
    index = 0
    while index < len(words):
        word = words[index]
        if word == "TO" or (word.startswith("+") and len(word) > 1):  # "+FGR": DPjudge's short TO
            if broadcast_verb:
                raise line.fail("BROADCAST goes to everyone: use PRESS TO ... for a private message")
            if recipients is not None or all_but:
                raise line.fail("the recipients are listed twice")
            if word == "TO":
                index += 1
                start = index
            else:
                words[index] = word[1:]
                start = index
            while index < len(words) and words[index] not in _OPTIONS and words[index] != "BUT":
                index += 1
            tokens = split_tokens(words[start:index])
            if tokens == ("ALL",) and index < len(words) and words[index] == "BUT":
                index += 1
                start = index
                while index < len(words) and words[index] not in _OPTIONS:
                    index += 1
                excluded = list(split_tokens(words[start:index]))
                if not excluded:
                    raise line.fail("TO ALL BUT needs the powers to leave out")
                all_but = True
                recipients = None
            elif tokens == ("ALL",):
                recipients = None
                all_but = False
                broadcast_verb = True  # PRESS TO ALL is a broadcast
            else:
                if not tokens:
                    raise line.fail("TO needs at least one recipient")
                if "ALL" in tokens or "BUT" in tokens:
                    raise line.fail("write TO ALL BUT followed by the powers to leave out")
                recipients = list(tokens)
            for token in (*(recipients or ()), *excluded):
                if not _TOKEN_RE.fullmatch(token):
                    raise line.fail(f"'{token}' is not a power: name powers (FRANCE), initials (FGR), M for the master")
            continue
        if word in ("GREY", "GRAY", "WHITE"):
            if grey_set:
                raise line.fail("give GREY or WHITE once")
            grey, grey_set = word != "WHITE", True
        elif word == "QUIET":
            if quiet:
                raise line.fail("QUIET is given twice")
            quiet = True
        elif word in ("FAKE", "FROM"):
            raise line.fail(f"{word} (fake press) is not offered by this judge")
        else:
            raise line.fail(f"'{line.args[index]}' is not a press option")
        index += 1
    if recipients is not None and not recipients:
        raise line.fail("TO needs at least one recipient")
    broadcast = recipients is None and not all_but
    return (tuple(recipients) if recipients is not None else None), tuple(excluded), grey, broadcast, quiet


def _cut_at_orders(ctx: ParseContext, line: CommandLine, body: list[SourceLine]) -> list[SourceLine]:
    """A press without ENDPRESS ends before its first line written as an order: those
    lines are read as the sender's own orders (and the reply says so), never sent as
    press unseen.  Orders meant as press are kept by ending the message with ENDPRESS."""
    first = next((index for index, body_line in enumerate(body)
                  if reads_as_order(strip_comment(body_line.text))), None)
    if first is None:
        return body
    ctx.rewind_to(body[first])
    ctx.notices.append(
        f"the {line.verb.words[0]} at line {line.number} has no ENDPRESS, so its message was ended before "
        f"line {body[first].number}, which reads as an order: that line and the ones after it were read as "
        "your orders and commands, not sent as press. To send orders as press, end the message with ENDPRESS.")
    return body[:first]


def _press(ctx: ParseContext, line: CommandLine) -> Press:
    broadcast_verb = line.verb.words[0] == "BROADCAST"
    try:
        recipients, excluded, grey, broadcast, quiet = _read_options(line, broadcast_verb)
    except Exception:
        # The header is wrong, but its body must not be read as orders or commands.
        body, _ = ctx.take_body(_PRESS_ENDS, stops_body)
        ctx.set_aside(body)
        raise
    body, ended = ctx.take_body(_PRESS_ENDS, stops_body)
    if ended not in _PRESS_ENDS:
        body = _cut_at_orders(ctx, line, body)
    texts = [b.text for b in body]
    while texts and not texts[0].strip():
        texts.pop(0)
    while texts and not texts[-1].strip():
        texts.pop()
    if not texts:
        raise line.fail(f"{line.verb.words[0]} has no message: write it on the lines after, then ENDPRESS")
    return Press(recipients, grey, broadcast, "\n".join(texts) + "\n", excluded, quiet,
                 tuple(body), source=line.source)


VERBS = (
    Verb(("PRESS",), "PRESS [TO powers | TO ALL BUT powers] [GREY] [QUIET], the message, then ENDPRESS",
         "send a message to some powers (initials FGR or names; M is the master); without TO, to everyone",
         _press, body=True,
         help=(("press", "PRESS TO FG", "to France and Germany (initials or names; M = master)"),
               ("press", "PRESS TO ALL BUT RT", "to everyone but Russia and Turkey"),
               ("press", "PRESS", "to everyone (also PRESS TO ALL)"),)),
    Verb(("BROADCAST",), "BROADCAST [GREY] [QUIET], the message, then ENDPRESS",
         "send a message to every player and observer of the game", _press, body=True,
         help=(("press", "BROADCAST", "to every player and observer"),
               ("press", "    add GREY to hide who sent it (if the game allows), QUIET for no copy back", ""),
               ("press", "...your message...", ""),
               ("press", "ENDPRESS", "ends the message (SIGNOFF or the end of the mail too)"),
               ("press", "", "without ENDPRESS the message ends before its first"),
               ("press", "", "line written as an order, read as your own orders"),
               ("press", "PROPOSE PEACE [WITH powers]", "a press line machine players read (RULE PRESS_LEVEL);"),
               ("press", "    also PROPOSE ALLIANCE AGAINST powers, PROPOSE DMZ provinces,", ""),
               ("press", "    PROPOSE ORDER order, PROPOSE DRAW, ACCEPT, REJECT, CANCEL,", ""),
               ("press", "    and DAIDE press text such as PRP (PCE (ENG FRA))", ""),)),
)


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
    row = PressLog(
        game_id=game.id, phase=game.phase, sender=who.label, membership_id=who.membership.id,
        recipients=list(recipients), grey=command.grey, broadcast=command.broadcast,
        subject=subject[:998], body=command.body, sent_at=ctx.now,
        daide=_for_machines(ctx, game, who, command, recipients) or None,
    )
    ctx.session.add(row)
    machine_press.bot_hears(ctx.session, game, row, ctx.now)  # the judge's bot answers in a bot process
    to = "everyone in the game" if command.broadcast else ", ".join(r for r in recipients if r not in undelivered)
    message = f"press sent to {to or 'nobody'}" + (" (grey)" if command.grey else "")
    if undelivered:
        message += f"; not delivered to {', '.join(undelivered)} (no player)"
    ctx.done(command, message)
    if not command.quiet:
        ctx.add_block(f"Your press to {to or 'nobody'} ({game.name}):\n" + command.body.rstrip("\n"))


def _for_machines(ctx: MailContext, game: Game, who: SignedOn, command: Press, recipients: tuple[str, ...]) -> list[str]:
    """The press lines of a player's press read into DAIDE (text form) for the machine players
    among its recipients, in a game where machines talk (RULE PRESS_LEVEL, and RULE MACHINES
    or a seat of the judge's bot); each
    press line that cannot be read is quoted with the accepted forms, the others still count.
    Read whoever the recipients are, so the reply never tells which powers are machines."""
    if not who.power or command.grey or machine_press.press_level(game) < 10:
        return []
    if not (has_rule(game, MACHINES) or machine_press.has_bot_seat(ctx.session, game)):
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


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Press: Handler(press, Needs.SIGNON),
}
