"""RULE PREFERENCES by email: the worked example of reference 002 as email lotteries,
and the bad input the issue lists (SHA-256 commitments here; signed ones in test_fair_escrow)."""

from __future__ import annotations

import email
import hashlib
import json
import re
from email.policy import default as default_policy

from sqlalchemy import select

from judge.config import Settings
from judge.fair.assignment import replay
from judge.fair.audit import check_record
from judge.fair.preferences import parse_preferences
from judge.commands.fair_assign import audit_records
from judge.commands.fair_players import PassContext
from judge.edge.scheduler import run_pass
from judge.store.models_fair import FairAssignment, FairLottery
from judge.store.models_game import Game, Membership
from judge.store.models_mail import OutboxMessage
from tests.judge.commands.conftest import create_game
from tests.judge.commands.harness import JUDGE, JudgeHarness, Sent, player

# The lists of the reference, players 1..7; player 8 (%REG) is a reserve (an observer here).
LISTS = ("AE(GI)R", "FRG", "(EFG)TI(AR)", "E", "*", "FRA", "GRA")
SALT = "SALT 0123456789abcdefXYZ"


def setup_example(judge: JudgeHarness) -> None:
    create_game(judge, "RULE PREFERENCES", "RULE LOTTERY_SHA256")
    reserve = judge.send("reserve@example.net", "OBSERVE eight@g1 rpw\nSET PREFERENCE %REG\n").reply
    assert "ERROR" not in reserve.body and "reserve" in reserve.body
    for index, wanted in enumerate(LISTS):
        reply = judge.send(player(index), f"JOIN g1 pw{index}\nSET PREFERENCE {wanted}\n").reply
        assert "ERROR" not in reply.body, reply.body


def salted(number: int, index: int = 0, seq: int = 1) -> str:
    """A fresh number file per player and lottery (a reused commitment is refused)."""
    return f"{number}\n{SALT}-{index}-{seq}\n"


def open_seq(judge: JudgeHarness) -> int:
    with judge.session() as session:
        row = session.execute(select(FairLottery).where(FairLottery.stage != "closed")).scalars().first()
        return row.seq if row is not None else 0


def commit_all(judge: JudgeHarness, numbers: list[int]):
    outcome = None
    seq = open_seq(judge)
    for index, number in enumerate(numbers):
        digest = hashlib.sha256(salted(number, index, seq).encode()).hexdigest()
        outcome = judge.send(player(index), f"SIGNON p{index + 1}@g1 pw{index}\nCOMMIT SHA256 {digest}\n")
        assert "ERROR" not in outcome.reply.body, outcome.reply.body
    return outcome


def reveal(judge: JudgeHarness, index: int, number: int):
    text = salted(number, index, open_seq(judge))
    return judge.send(player(index), f"SIGNON p{index + 1}@g1 pw{index}\nREVEAL\n{text}ENDREVEAL\n")


def test_worked_example_as_email_lotteries(judge: JudgeHarness) -> None:
    setup_example(judge)
    # the seventh JOIN filled the game: Austria went to P1 unopposed, France is contested
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "forming"
        first = session.execute(select(FairLottery)).scalar_one()
        shares = [(s["fields"]["player"], s["fields"]["chances"], tuple(s["fields"]["numbers"]["range"]))
                  for s in first.contest["fields"]["shares"]]
        assert first.contest["fields"]["power"] == "FRANCE"
        assert shares == [("P2", 3, (0, 3)), ("P3", 1, (3, 4)), ("P6", 3, (4, 7))]

    # the reference's numbers: 0 + 4 + 3 + 6 + 6 + 2 + 5 = 26, 26 mod 7 = 5: player 6 gets France
    numbers = [0, 4, 3, 6, 6, 2, 5]
    published = commit_all(judge, numbers)
    commitments = published.of_kind("fair_commitments")
    assert commitments and "P7: SHA256" in commitments[0].body
    for index, number in enumerate(numbers):
        outcome = reveal(judge, index, number)
        assert "ERROR" not in outcome.reply.body, outcome.reply.body
    result = outcome.of_kind("fair_lottery_result")[0].body
    assert "Sum 26; 26 mod 7 = 5." in result and "FRANCE goes to P6." in result
    # the next lottery was announced with its odds before any number
    announced = outcome.of_kind("fair_lottery")[0].body
    # "if player 3 does NOT get France, they still only get 1/3 of a shot at England":
    # England between P3 (1/3) and P4 (1): 4 outcomes, 0 for P3, 1 to 3 for P4
    assert "lottery 2: who plays ENGLAND" in announced and "There are 4 outcomes" in announced
    assert "0: P3 (1 chance)" in announced and "1 to 3: P4 (3 chances)" in announced

    # run the remaining lotteries with all-zero numbers until the game starts
    for _ in range(10):
        with judge.session() as session:
            game = session.execute(select(Game)).scalar_one()
            if game.status == "active":
                break
            row = session.execute(select(FairLottery).where(FairLottery.stage == "committing")).scalar_one()
            participants = row.lottery["fields"]["participants"]
        zeros = [0] * len(participants)
        commit_all(judge, zeros)
        for index in range(len(participants)):
            reveal(judge, index, 0)
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "active"
        members = session.execute(select(Membership).where(Membership.role == "player")
                                  .order_by(Membership.id)).scalars().all()
        powers = [m.power for m in members]
        assert powers[0] == "AUSTRIA" and powers[5] == "FRANCE"
        assert sorted(powers) == sorted(["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"])
        # the stored record replays to the same assignment, as judge audit checks it
        record = session.get(FairAssignment, game.id)
        letters = tuple(record.powers)
        entries = [(label, parse_preferences(text, letters)) for label, text in record.entries]
        state = replay(letters, entries, record.numbers)
        names = {"A": "AUSTRIA", "E": "ENGLAND", "F": "FRANCE", "G": "GERMANY", "I": "ITALY", "R": "RUSSIA",
                 "T": "TURKEY"}
        assert [names[state.assignment[f"P{i + 1}"]] for i in range(7)] == powers
        assert record.numbers[0] == 5
        ctx = PassContext(session, judge.now, JUDGE)
        assert audit_records(ctx, game) == []
    # the broadcast that announces the assignment carries the record judge audit checks
    assigned = [m for m in outcome_mails(judge) if m.kind == "fair_assigned"][0]
    document = attached_record(assigned.message)
    notes, problems = check_record(document)
    assert problems == [] and "same" in notes[0]
    assert document["lotteries"][0]["shares"] == [["P2", 0, 2], ["P3", 3, 3], ["P6", 4, 6]]
    tampered = json.loads(json.dumps(document))
    tampered["lotteries"][0]["numbers"][0][1] = 1  # 27 mod 7 = 6: still P6, but not the published 5
    assert any("not the published 5" in p for p in check_record(tampered)[1])
    tampered = json.loads(json.dumps(document))
    tampered["assignment"]["P1"], tampered["assignment"]["P6"] = "FRANCE", "AUSTRIA"
    assert any("recomputed" in p for p in check_record(tampered)[1])


def outcome_mails(judge: JudgeHarness):
    """Every mail in the outbox so far, parsed."""
    with judge.session() as session:
        rows = session.execute(select(OutboxMessage).order_by(OutboxMessage.id)).scalars().all()
        found = []
        for row in rows:
            message = email.message_from_bytes(row.raw, policy=default_policy)
            body = message.get_body(("plain",)).get_content()
            found.append(Sent(row.recipients[0], str(message["Subject"]), body, row.kind, message))
        return found


def attached_record(message) -> dict:
    for part in message.walk():
        if part.get_filename() == "g1-assignment.json":
            return json.loads(part.get_payload(decode=True))
    raise AssertionError("no assignment record attached")


def test_unknown_power_in_a_preference_list(judge: JudgeHarness) -> None:
    create_game(judge, "RULE PREFERENCES")
    reply = judge.send(player(0), "JOIN g1 pw0\nSET PREFERENCE AX(GI)\n").reply
    assert "unknown power letter 'X'" in reply.body and "'AX(GI)'" in reply.body
    assert "A, E, F, G, I, R, T" in reply.body


def start_first_lottery(judge: JudgeHarness) -> None:
    create_game(judge, "RULE PREFERENCES", "RULE LOTTERY_SHA256")
    for index in range(7):
        judge.send(player(index), f"JOIN g1 pw{index}\nSET PREFERENCE F\n")


def test_reveal_before_the_commitments_are_published(judge: JudgeHarness) -> None:
    start_first_lottery(judge)
    reply = judge.send(player(0), "SIGNON p1@g1 pw0\nREVEAL 3\n").reply
    assert "cannot reveal yet" in reply.body and "not published" in reply.body
    # nothing about who has not committed (issue 12.11)
    refusal = reply.body.split("REVEAL 3", 1)[1].split("\n\n", 1)[0]
    assert "not published" in refusal and "waiting" not in refusal
    assert not any(f"P{n}" in refusal for n in range(1, 8))


def test_a_commitment_cannot_be_reused(judge: JudgeHarness) -> None:
    start_first_lottery(judge)
    digest = hashlib.sha256(salted(3).encode()).hexdigest()
    assert "ERROR" not in judge.send(player(0), f"SIGNON p1@g1 pw0\nCOMMIT SHA256 {digest}\n").reply.body
    copied = judge.send(player(1), f"SIGNON p2@g1 pw1\nCOMMIT SHA256 {digest}\n").reply.body
    assert "this commitment was already used" in copied
    again = judge.send(player(0), f"SIGNON p1@g1 pw0\nCOMMIT SHA256 {digest}\n").reply.body
    assert "ERROR" not in again  # the same player repeating its own commitment in this lottery is fine


def test_number_outside_the_range_and_a_reveal_that_does_not_match(judge: JudgeHarness) -> None:
    start_first_lottery(judge)  # seven players want France: N = 7
    commit_all(judge, [1, 2, 3, 4, 5, 6, 0])
    with judge.session() as session:
        assert session.execute(select(FairLottery)).scalar_one().stage == "revealing"
    outside = judge.send(player(0), "SIGNON p1@g1 pw0\nREVEAL\n9\nSALT whatever-salt-123\nENDREVEAL\n").reply
    assert "does not match your commitment" in outside.body
    too_big = judge.send(player(0), "SIGNON p1@g1 pw0\nREVEAL 9\n").reply
    assert "number 9 is outside 0..6" in too_big.body
    wrong = reveal(judge, 0, 2).reply  # committed to 1
    assert "does not match your commitment" in wrong.body
    assert "ERROR" not in reveal(judge, 0, 1).reply.body


def test_a_silent_revealer_counts_as_zero_at_the_deadline(judge: JudgeHarness) -> None:
    start_first_lottery(judge)
    commit_all(judge, [1, 2, 3, 4, 5, 6, 6])
    for index, number in enumerate([1, 2, 3, 4, 5, 6]):
        reveal(judge, index, number)
    judge.advance(hours=23)
    run_pass(judge.store, Settings(judge=JUDGE), judge.now)  # the scheduler pass (judge tick)
    assert not [m for m in outcome_mails(judge) if m.kind == "fair_lottery_result"]
    judge.advance(hours=2)
    run_pass(judge.store, Settings(judge=JUDGE), judge.now)
    result = [m for m in outcome_mails(judge) if m.kind == "fair_lottery_result"][0].body
    # 1+2+3+4+5+6+0 = 21, 21 mod 7 = 0: P1 gets France
    assert re.search(r"P7: 0\s+\(not revealed in time: counts as 0\)", result)
    assert "Sum 21; 21 mod 7 = 0." in result and "FRANCE goes to P1." in result


# -- RULE SEALED: the lists are committed while the game forms ----------------------------
def list_file(text: str, index: int) -> str:
    return f"{text}\nSALT list-salt-of-player-{index}\n"


def test_sealed_lists_are_committed_then_revealed(judge: JudgeHarness) -> None:
    create_game(judge, "RULE PREFERENCES", "RULE SEALED", "RULE SEALED_SHA256", "RULE LOTTERY_SHA256")
    lists = {0: "F", 1: "F", 2: "E", 6: "T"}  # P4..P6 commit nothing: no preference
    plain = judge.send(player(0), "JOIN g1 pw0\nSET PREFERENCE F\n").reply
    assert "is sealed (RULE SEALED)" in plain.body
    for index in range(7):
        lines = f"JOIN g1 pw{index}\n" if index else f"SIGNON p1@g1 pw0\n"
        if index in lists:
            digest = hashlib.sha256(list_file(lists[index], index).encode()).hexdigest()
            lines += f"COMMIT SHA256 {digest}\n"
        if index == 1:
            early = judge.send(player(index), lines + "REVEAL\nF\nENDREVEAL\n").reply
            assert "cannot reveal your list yet" in early.body
            continue
        outcome = judge.send(player(index), lines)
        assert "ERROR" not in outcome.reply.body, outcome.reply.body
    published = outcome.of_kind("fair_list_commitments")[0].body
    assert "P1: SHA256" in published and "P4: no commitment" in published
    assert "P7: SHA256" in published  # committed in the mail whose JOIN filled the game
    assert "commitment to your preference list recorded" in outcome.reply.body
    with judge.session() as session:
        assert not session.execute(select(FairLottery)).first()  # no lottery before the lists are out
    wrong = judge.send(player(2), "SIGNON p3@g1 pw2\nREVEAL\nG\nSALT list-salt-of-player-2\nENDREVEAL\n").reply
    assert "does not match your commitment" in wrong.body
    for index in (0, 1, 6):
        reply = judge.send(player(index), f"SIGNON p{index + 1}@g1 pw{index}\nREVEAL\n{list_file(lists[index], index)}ENDREVEAL\n").reply
        assert "revealed and verified" in reply.body, reply.body
    judge.advance(days=2)  # P3 never sends the right file: no preference
    run_pass(judge.store, Settings(judge=JUDGE), judge.now)
    begins = [m for m in outcome_mails(judge) if m.kind == "fair_assignment"][0].body
    assert "P1  F" in begins and "P2  F" in begins and "P3  *" in begins and "P7  T" in begins
    assert "(P3: no list revealed, no preference)" in begins
    with judge.session() as session:
        row = session.execute(select(FairLottery)).scalars().first()
        assert row.contest["fields"]["power"] == "FRANCE"
        assert [s["fields"]["player"] for s in row.contest["fields"]["shares"]] == ["P1", "P2"]


def test_reserves_fill_only_a_dropped_power(judge: JudgeHarness) -> None:
    create_game(judge, "RULE PREFERENCES", "RULE LOTTERY_SHA256")
    judge.send("eight@example.net", "OBSERVE eight@g1 rpw\nSET PREFERENCE %RE\n")
    judge.send("nine@example.net", "OBSERVE nine@g1 rpw\nSET PREFERENCE %R\n")
    refused = judge.send(player(0), "JOIN g1 pw0\nSET PREFERENCE %R\n").reply
    assert "cannot be a reserve" in refused.body
    for index, letter in enumerate("AEFGIRT"):
        body = f"SIGNON p1@g1 pw0\nSET PREFERENCE {letter}\n" if index == 0 else f"JOIN g1 pw{index}\nSET PREFERENCE {letter}\n"
        judge.send(player(index), body)
    with judge.session() as session:
        assert session.execute(select(Game)).scalar_one().status == "active"  # all unopposed
    # Russia's player resigns: both reserves listed Russia, so a lottery between R1 and R2
    out = judge.send(player(5), "SIGNON russia@g1 pw5\nRESIGN\n")
    announced = out.of_kind("fair_lottery")[0].body
    assert "which reserve plays RUSSIA" in announced and "0: R1" in announced and "1: R2" in announced
    for address, name, number in (("eight@example.net", "eight", 0), ("nine@example.net", "nine", 1)):
        digest = hashlib.sha256(salted(number, len(name)).encode()).hexdigest()
        assert "ERROR" not in judge.send(address, f"SIGNON {name}@g1 rpw\nCOMMIT SHA256 {digest}\n").reply.body
    for address, name, number in (("eight@example.net", "eight", 0), ("nine@example.net", "nine", 1)):
        out = judge.send(address, f"SIGNON {name}@g1 rpw\nREVEAL\n{salted(number, len(name))}ENDREVEAL\n")
    assert "RUSSIA goes to R2." in out.of_kind("fair_lottery_result")[0].body
    # England's player resigns: only R1 (still waiting) listed England
    out = judge.send(player(1), "SIGNON england@g1 pw1\nRESIGN\n")
    assert any("ENGLAND is now played by the reserve R1" in m.body for m in out.of_kind("power_changed"))
    with judge.session() as session:
        seated = {m.address: m.power for m in session.execute(
            select(Membership).where(Membership.role == "player", Membership.status == "active")).scalars()}
    assert seated["nine@example.net"] == "RUSSIA" and seated["eight@example.net"] == "ENGLAND"


def test_a_lottery_reveal_forwarded_without_signon_counts_and_is_published(judge: JudgeHarness) -> None:
    """Issue 12.9: a reveal passed on by anyone (``REVEAL p1@g1``) is checked against P1's
    commitment; each verified number goes to the game's list as it arrives."""
    start_first_lottery(judge)
    commit_all(judge, [1, 2, 3, 4, 5, 6, 0])
    wrong = judge.send("stranger@example.net", f"REVEAL p1@g1\n{salted(2, 0)}ENDREVEAL\n").reply.body
    assert "does not match your commitment" in wrong
    forwarded = judge.send(player(3), f"REVEAL p1@g1\n{salted(1, 0)}ENDREVEAL\n")
    assert "number 1 revealed for lottery 1" in forwarded.reply.body, forwarded.reply.body
    published = forwarded.of_kind("fair_reveal")
    assert published and "P1 revealed 1" in published[0].body
    names = [part.get_filename() for part in published[0].message.walk() if part.get_filename()]
    assert "g1-lottery-1-reveal-P1.json" in names
    again = judge.send(player(0), f"SIGNON p1@g1 pw0\nREVEAL\n{salted(1, 0)}ENDREVEAL\n").reply.body
    assert "you already revealed 1" in again
