"""RULE PREFERENCES: SET PREFERENCE while the game forms, then the assignment of
reference 002 when the game fills, one email lottery per contested power.

The game stays ``forming`` (and full) while lotteries run; when every player has a power,
``start_game`` runs again and the game starts as usual.  Reserves are observers who sent
``SET PREFERENCE %...``: they take no place, and :func:`fill_dropped_power` picks one for a
power that is dropped.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.fair.assignment import AssignmentState, Contest, apply_outcome, next_contest, reserve_contest, start_assignment
from judge.crypto.commitments import (
    Committed,
    check_reveal,
    CommitmentFormatError,
    check_commitment,
    split_salted,
)
from judge.fair import ledger
from judge.fair.audit import FORMAT as RECORD_FORMAT, check_record, record_name
from judge.fair.preferences import PreferenceError, PreferenceList, parse_preferences
from judge.fair.serialize import from_data, to_data
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.mailio.render import render
from judge.publish.broadcast import broadcast
from judge.commands.context import Ctx, MailContext, SignedOn
from judge.mailio.inbound import CommandRefused
from judge.commands.fair_lottery import (
    DECIDED, SHA256, SIGNATURE, commitment_entry, numbers_of, open_lottery, record_file, signers_keys, stored_commitment,
    window,
)
from judge.commands.fair_players import (
    PassContext, claim_game, judge_keyring, label_for, numbered_players, numbered_reserves, registered_key,
)
from judge.publish.signing import FileAttachment
from judge.store.queries import (
    as_utc,
    has_rule,
    observers,
    variant_of,
)
from judge.commands.start import DEFERRERS, start_game
from judge.phases.turnstate import fresh_deadline_for_newcomer
from judge.store.models_fair import ASSIGNED, ASSIGNING, REVEALING_LISTS, FairAssignment, FairLottery, FairPreference
from judge.lifecycle import before_start
from judge.store.models_game import MEMBER_ACTIVE, PLAYER, RESIGNED, Game, Membership
from judge.commands.commitments import Commit, CommitSha256, Reveal
from judge.commands.fair import SetPreference
from judge.commands.handler import Handler, Needs



def letters_of(game: Game) -> tuple[str, ...]:
    return tuple(power.letter for power in variant_of(game).powers)


def power_by_letter(game: Game) -> dict[str, str]:
    return {power.letter: power.name for power in variant_of(game).powers}


def _text(command: SetPreference) -> str:
    body = "".join(tier[0] if len(tier) == 1 else "(" + "".join(tier) + ")" for tier in command.tiers)
    return ("%" if command.reserve else "") + (body or "*")


def set_preference(ctx: MailContext, command: SetPreference) -> None:
    who = ctx.require_signon()
    game = who.game
    early = ctx.fair_early_preferences
    if command.source.number in early:  # taken when this mail's JOIN filled the game
        ctx.done(command, early[command.source.number])
        return
    _record_preference(ctx, who, command)


def _record_preference(ctx: MailContext, who: SignedOn, command: SetPreference) -> str:
    game = who.game
    if not has_rule(game, "PREFERENCES"):
        raise CommandRefused(f"game '{game.name}' does not assign powers by preference (no RULE PREFERENCES)")
    if not before_start(game.status) or ctx.session.get(FairAssignment, game.id) is not None:
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
    if who.is_player and has_rule(game, "SEALED"):
        raise CommandRefused(
            f"game '{game.name}' is sealed (RULE SEALED): nobody may see your list before all are in. Write it "
            "in a file (e.g. prefs.txt holding AE(GI)R), sign it with gpg --armor --detach-sign prefs.txt and "
            "send COMMIT with prefs.txt.asc; REVEAL the file when the judge publishes the commitments")
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
    """The mail whose JOIN fills the game may carry the joiner's SET PREFERENCE (or, in a
    sealed game, the COMMIT of its list) below the JOIN: it counts, so it is recorded
    before the assignment begins."""
    if not isinstance(ctx, MailContext) or ctx.signed_on is None or ctx.signed_on.game.id != game.id:
        return
    early: dict[int, str] = {}
    for command in ctx.parsed.commands:
        if command.source.number <= ctx.signed_on.line:
            continue
        if command.opens_session:
            break
        if isinstance(command, (SetPreference, Commit, CommitSha256)):
            entries = len(ctx.entries)
            try:
                if isinstance(command, SetPreference):
                    early[command.source.number] = _record_preference(ctx, ctx.signed_on, command)
                elif commit_list(ctx, command):  # RULE SEALED: the list's commitment
                    early[command.source.number] = ctx.entries[-1].message
            except CommandRefused:
                continue  # refused again, with its message, when the dispatcher reaches it
            finally:
                del ctx.entries[entries:]
    ctx.fair_early_preferences = early


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
    assignment = FairAssignment(
        game_id=game.id, status=ASSIGNING, powers=list(letters_of(game)),
        players=[[label, member.id] for label, member in numbered], entries=[], numbers=[], state={},
        started_at=ctx.now,
    )
    ctx.session.add(assignment)
    ctx.session.flush()
    if has_rule(game, "SEALED"):
        return _publish_list_commitments(ctx, game, assignment)
    return _assign(ctx, game, assignment)


def _assign(ctx: Ctx, game: Game, assignment: FairAssignment, notes: Sequence[str] = ()) -> bool:
    """Run the assignment from the lists now known: True while lotteries are needed."""
    numbered = numbered_players(ctx.session, game)
    entries = [(label, preference_of(ctx, game, member)) for label, member in numbered]
    reserve_members = [m for m in observers(ctx.session, game) if preference_of(ctx, game, m).reserve]
    reserves = [(f"R{i + 1}", preference_of(ctx, game, m)) for i, m in enumerate(reserve_members)]
    state = start_assignment(letters_of(game), entries + reserves)
    assignment.players = [[label, member.id] for label, member in numbered] + [
        [f"R{i + 1}", member.id] for i, member in enumerate(reserve_members)]
    assignment.status = ASSIGNING
    assignment.reveal_deadline = None
    assignment.entries = [[label, pref.canonical()] for label, pref in entries + reserves]
    assignment.state = to_data(state)
    body = render("fair_assignment_begins.j2", game=game.name, entries=entries, reserves=reserves,
                  decisions=_decisions(game, state), names=power_by_letter(game), notes=list(notes))
    record = ledger.lists_record(game.name, assignment.entries)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: power assignment begins",
                       body=body, kind="fair_assignment",
                       attachments=[record_file(ledger.lists_record_name(game.name, ledger.LISTS), record)]))
    return advance(ctx, game, assignment)


# -- RULE SEALED: the lists are committed while the game forms, revealed when it fills ----
def _list_rows(ctx: Ctx, game: Game) -> dict[int, FairPreference]:
    rows = ctx.session.execute(select(FairPreference).where(FairPreference.game_id == game.id)).scalars()
    return {row.membership_id: row for row in rows}


def _publish_list_commitments(ctx: Ctx, game: Game, assignment: FairAssignment) -> bool:
    rows = _list_rows(ctx, game)
    committed = []
    entries: dict[str, dict | None] = {}
    for label, member in numbered_players(ctx.session, game):
        row = rows.get(member.id)
        entries[label] = (None if row is None or row.commit_kind is None
                          else stored_commitment(row.commit_kind, row.digest, row.commitment, row.fingerprint))
        if row is None or row.commit_kind is None:
            committed.append((label, "no commitment: no preference", ""))
        elif row.commit_kind == SHA256:
            committed.append((label, f"SHA256 {row.digest}", ""))
        else:
            committed.append((label, f"signed by {row.fingerprint}", (row.commitment or b"").decode("ascii", "replace").strip()))
    if all(what.startswith("no commitment") for _, what, _ in committed):
        return _assign(ctx, game, assignment, ["nobody committed to a list: no preferences"])
    assignment.status = REVEALING_LISTS
    assignment.reveal_deadline = ctx.now + window(game)
    body = render("fair_list_commitments.j2", game=game.name, commitments=committed,
                  deadline=as_utc(assignment.reveal_deadline).strftime("%Y-%m-%d %H:%M UTC"))
    members = dict(numbered_players(ctx.session, game))
    record = ledger.list_commitments_record(game.name, entries, keys=signers_keys(
        ctx, [members[label] for label, entry in entries.items() if entry and entry["kind"] != SHA256]))
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: preference list commitments",
                       body=body, kind="fair_list_commitments",
                       attachments=[record_file(ledger.lists_record_name(game.name, ledger.COMMITMENTS), record)]))
    return True


def _sealed_lists(ctx: MailContext) -> tuple[Game, Membership, FairAssignment | None] | None:
    who = ctx.signed_on
    if who is None or not who.is_player:
        return None
    game = who.game
    if not (has_rule(game, "PREFERENCES") and has_rule(game, "SEALED")) or not before_start(game.status):
        return None
    assignment = ctx.session.get(FairAssignment, game.id)
    if assignment is not None and assignment.status == REVEALING_LISTS:
        claim_game(ctx.session, game)  # a deadline pass assigning from these lists meanwhile: retried
    return game, who.membership, assignment


def commit_list(ctx: MailContext, command: Commit | CommitSha256) -> bool:
    early = ctx.fair_early_preferences
    if command.source.number in early:  # taken when this mail's JOIN filled the game
        ctx.done(command, early[command.source.number])
        return True
    found = _sealed_lists(ctx)
    if found is None:
        return False
    game, member, assignment = found
    if assignment is not None:
        if assignment.status == REVEALING_LISTS:
            raise CommandRefused("the list commitments were published when the game filled: a commitment cannot "
                                 "be made or changed now; send REVEAL with your list")
        return False  # a lottery commitment (judge/commands/fair_lottery.py)
    row = _list_rows(ctx, game).get(member.id)
    if row is None:
        row = FairPreference(game_id=game.id, membership_id=member.id, text="*", set_at=ctx.now)
        ctx.session.add(row)
    if isinstance(command, CommitSha256):
        if not (has_rule(game, "SEALED_SHA256") or has_rule(game, "LOTTERY_SHA256")):
            raise CommandRefused(f"game '{game.name}' wants signed commitments: attach prefs.txt.asc made with "
                                 "gpg --armor --detach-sign prefs.txt")
        row.commit_kind, row.digest, row.commitment, row.fingerprint = SHA256, command.digest, None, None
    else:
        key = registered_key(ctx.session, member)
        if key is None:
            raise CommandRefused("you have no registered key: send SET KEY with your public key first")
        with judge_keyring(ctx.session, ctx.judge, [member]) as ring:
            verdict = check_commitment(ring, command.signature_data, key.fingerprint)
        if not verdict.valid:
            raise CommandRefused(f"commitment refused: {verdict.reason}")
        row.commit_kind, row.commitment, row.fingerprint, row.digest = SIGNATURE, command.signature_data, key.fingerprint, None
    row.set_at = ctx.now
    ctx.done(command, "commitment to your preference list recorded; you reveal it when the game fills "
                      "and the judge publishes every list commitment")
    return True


def reveal_list(ctx: MailContext, command: Reveal) -> bool:
    found = _sealed_lists(ctx)
    if found is None:
        return False
    game, member, assignment = found
    if assignment is None:
        raise CommandRefused("you cannot reveal your list yet: the list commitments are published when the game "
                             "fills; reveal after that broadcast")
    if assignment.status != REVEALING_LISTS:
        return False  # a lottery number (judge/commands/fair_lottery.py)
    row = _list_rows(ctx, game).get(member.id)
    if row is None or row.commit_kind is None:
        raise CommandRefused("you made no commitment to a list before the game filled: you have no preference")
    if row.revealed_at is not None:
        raise CommandRefused(f"you already revealed your list {row.text}")
    data = command.data()
    committed = (Committed(digest=row.digest or "") if row.commit_kind == SHA256
                 else Committed(signature=row.commitment or b"", fingerprint=row.fingerprint or ""))
    try:
        check = check_reveal(committed, data, lambda: judge_keyring(ctx.session, ctx.judge, [member]))
        verdict = check.verdict
        if check.signed is None:
            text = ""
        elif row.commit_kind == SHA256:
            text = split_salted(check.signed.decode("utf-8"))[0]
        else:
            text = check.signed.decode("utf-8", "replace")
    except (CommitmentFormatError, UnicodeDecodeError) as problem:
        raise CommandRefused(str(problem)) from None
    if not verdict.valid:
        raise CommandRefused(f"the revealed list does not match your commitment: {verdict.reason}")
    written = next((line.strip() for line in text.splitlines() if line.strip()), "*")
    try:
        preference = parse_preferences(written, letters_of(game))
    except PreferenceError as problem:
        raise CommandRefused(f"{problem}; your list counts as no preference") from None
    if preference.reserve:
        raise CommandRefused("a player with a place cannot be a reserve; your list counts as no preference")
    row.text, row.revealed_at = preference.canonical(), ctx.now
    ctx.done(command, f"preference list {preference.canonical()} revealed and verified against your commitment")
    _publish_list_reveal(ctx, game, member, preference.canonical(), data)
    waiting = [r for r in _list_rows(ctx, game).values() if r.commit_kind is not None and r.revealed_at is None]
    if not waiting:
        lists_revealed(ctx, game, assignment)
    return True


def _publish_list_reveal(ctx: Ctx, game: Game, member: Membership, preference: str, data: bytes) -> None:
    """Each verified list goes to the game's list as it arrives (as lottery reveals do)."""
    label = label_for(ctx.session, game, member) or "?"
    revealed = data.decode("utf-8", "replace")
    record = ledger.list_reveal_record(game.name, label, preference, revealed)
    body = render("fair_list_reveal.j2", game=game.name, label=label, preference=preference, revealed=revealed)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {label}'s preference list revealed",
                       body=body, kind="fair_reveal",
                       attachments=[record_file(ledger.lists_record_name(game.name, ledger.REVEAL, label), record)]))


def lists_revealed(ctx: Ctx, game: Game, assignment: FairAssignment) -> None:
    """Every committed list is revealed, or the deadline passed: assign from what is known."""
    rows = _list_rows(ctx, game)
    notes = [f"{label}: no list revealed, no preference" for label, member in numbered_players(ctx.session, game)
             if rows.get(member.id) is None or rows[member.id].revealed_at is None]
    if not _assign(ctx, game, assignment, notes):
        start_game(ctx, game)


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
            commitments[label] = {
                **commitment_entry(number),
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
        start_game(ctx, game)


def fill_dropped_power(ctx: Ctx, game: Game, power: str) -> None:
    """A power was dropped: a reserve who listed it (else one without preference) takes it,
    by a lottery among several (reference 002: reserves "only fill a power that is dropped")."""
    assignment = ctx.session.get(FairAssignment, game.id)
    if assignment is None or assignment.status != ASSIGNED:
        return
    letter = next(p.letter for p in variant_of(game).powers if p.name == power)
    waiting = {label for label, member in numbered_reserves(ctx.session, game) if member.status == MEMBER_ACTIVE}
    reserves = [(label, pref) for label, pref in state_of(assignment).reserves if label in waiting]
    contest = reserve_contest(reserves, letter)
    if contest is None:
        return
    if contest.decided_winner is not None:
        _seat_reserve(ctx, game, contest.decided_winner, power)
        return
    open_lottery(ctx, game, Contest(power, contest.shares), purpose="reserve", what=f"which reserve plays {power}",
                 participants=tuple(share.player for share in contest.shares if share.player is not None))


def _seat_reserve(ctx: Ctx, game: Game, label: str, power: str) -> None:
    reserve = dict(numbered_reserves(ctx.session, game))[label]
    reserve.status = RESIGNED  # no longer an observer: a player
    member = Membership(game_id=game.id, role=PLAYER, power=power, name=reserve.name, address=reserve.address,
                        password_hash=reserve.password_hash, joined_at=ctx.now)
    ctx.session.add(member)
    ctx.session.flush()
    later = fresh_deadline_for_newcomer(game, ctx.now)
    text = (f"{power} is now played by the reserve {label} ({reserve.name or 'observer'}); "
            f"it signs on with SIGNON {power.lower()}@{game.name} and its observer password.")
    if later:
        text += f" The deadline passed before the reserve came in: it is now {later}."
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {power} taken by a reserve",
                       body=render("power_changed.j2", game=game.name, text=text), kind="power_changed"))


def on_reserve_decided(ctx: Ctx, game: Game, row: FairLottery, contest: Contest, number: int) -> None:
    winner = contest.winner(number)
    if winner is not None:
        _seat_reserve(ctx, game, winner, contest.power)


def audit_records(ctx: Ctx, game: Game) -> list[str]:
    """The problems judge audit would find in the game's assignment record (none: [])."""
    assignment = ctx.session.get(FairAssignment, game.id)
    if assignment is None or assignment.status != ASSIGNED:
        return []
    return check_record(assignment_record(ctx, game, assignment, state_of(assignment)))[1]


DEFERRERS["PREFERENCES"] = begin
DECIDED["assign"] = on_decided
DECIDED["reserve"] = on_reserve_decided


def fill_vacancies(session: Session, game: Game, judge: JudgeSettings, now: datetime,
                   powers: frozenset[str]) -> list[OutgoingMail]:
    """After a scheduler pass dismissed late players (RULE PREFERENCES): a reserve takes each
    dismissed power, or a lottery among reserves opens (the turn path's VacancyFiller)."""
    if not has_rule(game, "PREFERENCES"):
        return []
    ctx = PassContext(session, now, judge)
    for power in sorted(powers):
        fill_dropped_power(ctx, game, power)
    return ctx.outgoing


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    SetPreference: Handler(set_preference, Needs.SIGNON),
}
