"""RULE PREFERENCES: SET PREFERENCE while the game forms, then the assignment of
reference 002 when the game fills, one email lottery per contested power.

The game stays ``forming`` (and full) while lotteries run; when every player has a power,
``start_game`` runs again and the game starts as usual.  Reserves are observers who sent
``SET PREFERENCE %...``: they take no place, and :func:`fill_dropped_power` picks one for a
power that is dropped.
"""

from __future__ import annotations

import json

from sqlalchemy import select

from judge.fair.assignment import AssignmentState, Contest, apply_outcome, next_contest, reserve_contest, start_assignment
from judge.crypto.armor import enarmor
from judge.fair.audit import FORMAT as RECORD_FORMAT, check_record, record_name
from judge.fair.preferences import PreferenceError, PreferenceList, parse_preferences
from judge.fair.serialize import from_data, to_data
from judge.render import render
from judge.services.broadcast import broadcast
from judge.services.context import CommandRefused, MailContext, SignedOn
from judge.services.dispatch import SESSION_OPENERS
from judge.services.fair_lottery import DECIDED, numbers_of, open_lottery
from judge.services.fair_players import Ctx, numbered_players, registered_key
from judge.services.signing import FileAttachment
from judge.services.games import has_rule, observers, variant_of
from judge.services.registry import Needs, handles
from judge.services.rules import add_rule
from judge.services.start import DEFERRERS, start_game
from judge.store.models_fair import ASSIGNED, ASSIGNING, FairAssignment, FairLottery, FairPreference
from judge.store.models_game import FORMING, PREPARATION, Game, Membership
from mailcmds import SetPreference

add_rule("PREFERENCES", "powers are assigned from SET PREFERENCE lists, contests decided by email lotteries")


def letters_of(game: Game) -> tuple[str, ...]:
    return tuple(power.letter for power in variant_of(game).powers)


def power_by_letter(game: Game) -> dict[str, str]:
    return {power.letter: power.name for power in variant_of(game).powers}


def _text(command: SetPreference) -> str:
    body = "".join(tier[0] if len(tier) == 1 else "(" + "".join(tier) + ")" for tier in command.tiers)
    return ("%" if command.reserve else "") + (body or "*")


@handles(SetPreference, needs=Needs.SIGNON)
def set_preference(ctx: MailContext, command: SetPreference) -> None:
    who = ctx.require_signon()
    game = who.game
    early: dict[int, str] = getattr(ctx, "fair_early_preferences", {})
    if command.source.number in early:  # taken when this mail's JOIN filled the game
        ctx.done(command, early[command.source.number])
        return
    _record_preference(ctx, who, command)


def _record_preference(ctx: MailContext, who: SignedOn, command: SetPreference) -> str:
    game = who.game
    if not has_rule(game, "PREFERENCES"):
        raise CommandRefused(f"game '{game.name}' does not assign powers by preference (no RULE PREFERENCES)")
    if game.status not in (PREPARATION, FORMING) or ctx.session.get(FairAssignment, game.id) is not None:
        raise CommandRefused(f"preferences can only be set while game '{game.name}' forms; the assignment has begun")
    written = command.source.text.split(None, 2)[2] if len(command.source.text.split(None, 2)) > 2 else "*"
    try:
        preference = parse_preferences(_text(command), letters_of(game))
    except PreferenceError as problem:
        raise CommandRefused(str(problem).replace(repr(_text(command)), repr(written.strip()), 1)) from None
    if who.is_player and preference.reserve:
        raise CommandRefused("a player with a place cannot be a reserve: a reserve takes no place "
                             f"(RESIGN, then OBSERVE {game.name} password name and SET PREFERENCE %...)")
    if who.is_observer and not preference.reserve:
        raise CommandRefused("observers can only be reserves: write SET PREFERENCE %... (e.g. %REG)")
    if who.is_master:
        raise CommandRefused("the master does not take part in the assignment")
    row = ctx.session.execute(select(FairPreference).where(
        FairPreference.game_id == game.id, FairPreference.membership_id == who.membership.id)).scalar_one_or_none()
    if row is None:
        row = FairPreference(game_id=game.id, membership_id=who.membership.id, text="*", set_at=ctx.now)
        ctx.session.add(row)
    row.text, row.reserve, row.set_at = preference.canonical(), preference.reserve, ctx.now
    meaning = "reserve, " if preference.reserve else ""
    message = (f"preference list {preference.canonical()} recorded ({meaning}"
               f"{'no preference' if not preference.has_preference else 'best first'})")
    ctx.done(command, message)
    return message


def _take_early_preferences(ctx: Ctx, game: Game) -> None:
    """The mail whose JOIN fills the game may carry the joiner's SET PREFERENCE below the
    JOIN: it counts, so it is recorded before the assignment begins."""
    if not isinstance(ctx, MailContext) or ctx.signed_on is None or ctx.signed_on.game.id != game.id:
        return
    early: dict[int, str] = {}
    for command in ctx.parsed.commands:
        if command.source.number <= ctx.signed_on.line:
            continue
        if isinstance(command, SESSION_OPENERS):
            break
        if isinstance(command, SetPreference):
            entries = len(ctx.entries)
            try:
                early[command.source.number] = _record_preference(ctx, ctx.signed_on, command)
            except CommandRefused:
                continue  # refused again, with its message, when the dispatcher reaches it
            finally:
                del ctx.entries[entries:]
    ctx.fair_early_preferences = early  # type: ignore[attr-defined]


def preference_of(ctx: Ctx, game: Game, member: Membership) -> PreferenceList:
    row = ctx.session.execute(select(FairPreference).where(
        FairPreference.game_id == game.id, FairPreference.membership_id == member.id)).scalar_one_or_none()
    return parse_preferences(row.text if row else "*", letters_of(game))


def state_of(assignment: FairAssignment) -> AssignmentState:
    return from_data(assignment.state)


def begin(ctx: Ctx, game: Game) -> bool:
    """The game filled: start the assignment (True), or let the start go on once done."""
    existing = ctx.session.get(FairAssignment, game.id)
    if existing is not None:
        return existing.status != ASSIGNED
    _take_early_preferences(ctx, game)
    numbered = numbered_players(ctx.session, game)
    entries = [(label, preference_of(ctx, game, member)) for label, member in numbered]
    reserves = [(f"R{i + 1}", preference_of(ctx, game, member)) for i, member in enumerate(observers(ctx.session, game))]
    reserves = [(label, pref) for label, pref in reserves if pref.reserve]
    state = start_assignment(letters_of(game), entries + reserves)
    assignment = FairAssignment(
        game_id=game.id, status=ASSIGNING, powers=list(letters_of(game)),
        players=[[label, member.id] for label, member in numbered],
        entries=[[label, pref.canonical()] for label, pref in entries + reserves],
        numbers=[], state=to_data(state), started_at=ctx.now,
    )
    ctx.session.add(assignment)
    ctx.session.flush()
    body = render("fair_assignment_begins.j2", game=game.name, entries=entries, reserves=reserves,
                  decisions=_decisions(game, state), names=power_by_letter(game))
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: power assignment begins",
                       body=body, kind="fair_assignment"))
    return advance(ctx, game, assignment)


def _decisions(game: Game, state: AssignmentState, start: int = 0) -> list[str]:
    names = power_by_letter(game)
    lines = []
    for decision in state.decisions[start:]:
        who = decision.player or "nobody (unplayed)"
        how = {"unopposed": "unopposed", "lottery": f"lottery, number {decision.number}",
               "remaining": "the only one left wanting it"}.get(decision.how, decision.how)
        lines.append(f"{names[decision.power]}: {who} ({how})")
    return lines


def advance(ctx: Ctx, game: Game, assignment: FairAssignment) -> bool:
    """Open the next lottery, or finish: True while the assignment goes on."""
    state = state_of(assignment)
    contest = next_contest(state)
    if contest is not None:
        name = power_by_letter(game)[contest.power]
        open_lottery(ctx, game, _named(game, contest), purpose="assign", what=f"who plays {name}",
                     participants=state.players)
        return True
    finish(ctx, game, assignment, state)
    return False


def _named(game: Game, contest: Contest) -> Contest:
    """The contest with the power's full name, for the announcement (letters stay in the state)."""
    return Contest(power_by_letter(game)[contest.power], contest.shares)


def finish(ctx: Ctx, game: Game, assignment: FairAssignment, state: AssignmentState) -> None:
    names = power_by_letter(game)
    members = dict(numbered_players(ctx.session, game))
    for label, letter in state.assignment.items():
        members[label].power = names[letter]
    assignment.status = ASSIGNED
    assignment.finished_at = ctx.now
    body = render("fair_assigned.j2", game=game.name, decisions=_decisions(game, state),
                  numbers=assignment.numbers, entries=assignment.entries, record=record_name(game.name))
    record = FileAttachment(record_name(game.name), json.dumps(assignment_record(ctx, game, assignment, state),
                                                               indent=1, sort_keys=True).encode("utf-8"),
                            "application/json")
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: powers assigned", body=body,
                       kind="fair_assigned", attachments=[record]))
    ctx.session.flush()


def assignment_record(ctx: Ctx, game: Game, assignment: FairAssignment, state: AssignmentState) -> dict:
    """The replayable record judge audit checks (judge/fair/audit.py)."""
    names = power_by_letter(game)
    letters = {name: letter for letter, name in names.items()}
    lotteries = []
    keys: dict[str, str] = {}
    for row in ctx.session.execute(select(FairLottery).where(
            FairLottery.game_id == game.id, FairLottery.purpose == "assign").order_by(FairLottery.seq)).scalars():
        if row.outcome is None:
            continue
        contest: Contest = from_data(row.contest)
        commitments = {}
        for label, number in numbers_of(ctx, row).items():
            data = number.signature or b""
            text = data.decode("ascii") if data.lstrip().startswith(b"-----BEGIN PGP") else (enarmor(data) if data else "")
            commitments[label] = {
                "kind": number.kind, "data": number.digest if number.kind == "sha256" else text,
                "fingerprint": number.fingerprint,
                "revealed": number.revealed_data.decode("utf-8", "replace") if number.revealed_data else None,
            }
            member = ctx.session.get(Membership, number.membership_id)
            key = registered_key(ctx.session, member) if member is not None else None
            if key is not None:
                keys[key.fingerprint] = key.armored
        lotteries.append({
            "seq": row.seq, "power": letters.get(contest.power, contest.power), "outcomes": contest.outcomes,
            "shares": [[s.player, s.numbers.start, s.numbers.stop - 1] for s in contest.shares],
            "numbers": row.outcome["counted"], "defaulted": row.outcome["defaulted"],
            "result": row.outcome["number"], "winner": row.outcome["winner"], "commitments": commitments,
        })
    return {
        "format": RECORD_FORMAT, "game": game.name, "powers": list(assignment.powers), "names": names,
        "lists": assignment.entries, "lotteries": lotteries, "keys": "".join(keys.values()),
        "assignment": {label: names[letter] for label, letter in state.assignment.items()},
    }


def on_decided(ctx: Ctx, game: Game, row: FairLottery, contest: Contest, number: int) -> None:
    assignment = ctx.session.get(FairAssignment, game.id)
    assert assignment is not None
    state = state_of(assignment)
    pending = next_contest(state)
    assert pending is not None and pending.shares == contest.shares
    before = len(state.decisions)
    state = apply_outcome(state, pending, number)
    assignment.state = to_data(state)
    assignment.numbers = [*assignment.numbers, number]
    later = _decisions(game, state, before + 1)
    if later:
        ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: powers settled without a lottery",
                           body=render("fair_settled.j2", game=game.name, decisions=later),
                           kind="fair_assignment"))
    if not advance(ctx, game, assignment):
        start_game(ctx, game)  # type: ignore[arg-type]  # any Ctx carries what start_game uses


def fill_dropped_power(ctx: Ctx, game: Game, power: str) -> str | None:
    """The reserve (label) who fills ``power``, when a single one fits; ``None`` when nobody
    fits or a lottery among several is needed (reported to the caller)."""
    assignment = ctx.session.get(FairAssignment, game.id)
    if assignment is None:
        return None
    letter = next(p.letter for p in variant_of(game).powers if p.name == power)
    contest = reserve_contest(state_of(assignment).reserves, letter)
    return None if contest is None else contest.decided_winner


def audit_records(ctx: Ctx, game: Game) -> list[str]:
    """The problems judge audit would find in the game's assignment record (none: [])."""
    assignment = ctx.session.get(FairAssignment, game.id)
    if assignment is None or assignment.status != ASSIGNED:
        return []
    return check_record(assignment_record(ctx, game, assignment, state_of(assignment)))[1]


DEFERRERS["PREFERENCES"] = begin
DECIDED["assign"] = on_decided
