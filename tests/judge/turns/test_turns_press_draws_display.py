"""Press after the deadline, draw and concession votes, deadline display."""

from datetime import datetime, timedelta, timezone

import pytest

from judge.turns.display import format_deadline, format_remaining, zone_or_error
from judge.turns.draws import Ballot, DrawError, Outcome, OutcomeKind, missing_votes, parse_draw_powers, tally
from judge.turns.press import MASTER, late_press_refusal

DEADLINE = datetime(2026, 11, 25, 20, 0, tzinfo=timezone.utc)
AFTER = DEADLINE + timedelta(minutes=1)
BEFORE = DEADLINE - timedelta(minutes=1)
LATE = frozenset({"FRANCE"})


def refusal(sender, recipients=frozenset(), broadcast=False, now=AFTER, rules=frozenset()):
    return late_press_refusal(
        sender, frozenset(recipients), broadcast=broadcast, late=LATE, now=now, deadline=DEADLINE, rules=rules
    )


# --- press


def test_before_the_deadline_late_limits_do_not_apply():
    assert refusal("FRANCE", {"ITALY"}, now=BEFORE, rules=frozenset({"NO_LATE_RECEIVE"})) is None


def test_late_power_may_send_broadcast_and_press_to_the_master_only():
    assert refusal("FRANCE", broadcast=True) is None
    assert refusal("FRANCE", {MASTER}) is None
    message = refusal("FRANCE", {"ITALY"})
    assert message is not None and "late" in message and "master" in message
    assert refusal("FRANCE", {"ITALY", MASTER}) is not None


def test_late_send_lets_late_powers_send_private_press():
    assert refusal("FRANCE", {"ITALY"}, rules=frozenset({"LATE_SEND"})) is None


def test_others_may_write_to_a_late_power_unless_no_late_receive():
    assert refusal("ITALY", {"FRANCE"}) is None
    message = refusal("ITALY", {"FRANCE", "GERMANY"}, rules=frozenset({"NO_LATE_RECEIVE"}))
    assert message is not None and "FRANCE" in message and "GERMANY" not in message
    assert refusal("ITALY", {"GERMANY"}, rules=frozenset({"NO_LATE_RECEIVE"})) is None
    assert refusal("ITALY", broadcast=True, rules=frozenset({"NO_LATE_RECEIVE"})) is None


# --- draws

SURVIVORS = frozenset({"ENGLAND", "FRANCE", "GERMANY", "ITALY"})
LETTERS = {"A": "AUSTRIA", "E": "ENGLAND", "F": "FRANCE", "G": "GERMANY", "I": "ITALY", "R": "RUSSIA", "T": "TURKEY"}
YES = Ballot(draw=True)
NO = Ballot(draw=False)
NO_DIAS = frozenset({"NO_DIAS"})


def votes(**ballots: Ballot) -> dict[str, Ballot]:
    return {power.upper(): ballot for power, ballot in ballots.items()}


def listed(letters: str) -> Ballot:
    return Ballot(draw=True, draw_powers=parse_draw_powers(letters, LETTERS))


def test_dias_passes_when_every_survivor_votes_draw():
    everyone = {p: YES for p in SURVIVORS}
    assert tally(SURVIVORS, everyone) == Outcome(OutcomeKind.DRAW, SURVIVORS)


def test_dias_fails_with_one_no_or_one_missing_vote():
    assert tally(SURVIVORS, {**{p: YES for p in SURVIVORS}, "ITALY": NO}) is None
    assert tally(SURVIVORS, {p: YES for p in SURVIVORS - {"ITALY"}}) is None


def test_eliminated_powers_votes_do_not_count():
    ballots = {**{p: YES for p in SURVIVORS}, "RUSSIA": NO}
    assert tally(SURVIVORS, ballots) == Outcome(OutcomeKind.DRAW, SURVIVORS)


def test_a_list_in_a_dias_game_is_refused_unless_it_is_everyone():
    ballots = {p: YES for p in SURVIVORS}
    with pytest.raises(DrawError, match="DIAS"):
        tally(SURVIVORS, {**ballots, "ITALY": listed("EFG")})
    assert tally(SURVIVORS, {**ballots, "ITALY": listed("EFGI")}) is not None


def test_no_dias_largest_draw_every_survivor_accepts():
    ballots = votes(england=listed("EFG"), france=listed("EFGI"), germany=listed("EFG"), italy=listed("EFG"))
    # Italy lists itself out: it accepts a draw among England, France and Germany.
    assert tally(SURVIVORS, ballots, NO_DIAS) == Outcome(OutcomeKind.DRAW, frozenset({"ENGLAND", "FRANCE", "GERMANY"}))


def test_no_dias_a_voter_who_listed_itself_is_never_drawn_out():
    ballots = votes(england=listed("EF"), france=listed("EF"), germany=listed("EFG"), italy=listed("EF"))
    assert tally(SURVIVORS, ballots, NO_DIAS) is None  # Germany wanted to be in it
    ballots["GERMANY"] = listed("EF")
    assert tally(SURVIVORS, ballots, NO_DIAS) == Outcome(OutcomeKind.DRAW, frozenset({"ENGLAND", "FRANCE"}))


def test_no_dias_needs_every_survivor_and_plain_set_draw_means_everyone():
    partial = votes(england=listed("EF"), france=listed("EF"), germany=listed("EF"))
    assert tally(SURVIVORS, partial, NO_DIAS) is None
    plain = {p: YES for p in SURVIVORS}
    assert tally(SURVIVORS, plain, NO_DIAS) == Outcome(OutcomeKind.DRAW, SURVIVORS)
    # A plain SET DRAW lists every survivor, the voter included: Italy will not be drawn out.
    mixed = {**plain, "ENGLAND": listed("EFG")}
    assert tally(SURVIVORS, mixed, NO_DIAS) is None


def test_no_dias_refuses_lists_with_eliminated_powers_or_a_single_power():
    with pytest.raises(DrawError, match="RUSSIA"):
        tally(SURVIVORS, votes(england=listed("ER")), NO_DIAS)
    with pytest.raises(DrawError, match="at least two"):
        tally(SURVIVORS, votes(england=listed("E")), NO_DIAS)


def test_concession_passes_when_all_other_survivors_concede_to_the_same_power():
    ballots = votes(england=Ballot(concede_to="FRANCE"), germany=Ballot(concede_to="FRANCE"), italy=Ballot(concede_to="FRANCE"))
    assert tally(SURVIVORS, ballots) == Outcome(OutcomeKind.CONCESSION, frozenset({"FRANCE"}))
    ballots["ITALY"] = Ballot(concede_to="GERMANY")
    assert tally(SURVIVORS, ballots) is None


def test_concession_wins_over_a_draw_passing_at_the_same_time():
    ballots = {p: Ballot(draw=True, concede_to="FRANCE") for p in SURVIVORS}
    assert tally(SURVIVORS, ballots).kind is OutcomeKind.CONCESSION


def test_concession_to_a_non_survivor_is_refused():
    with pytest.raises(DrawError, match="not a survivor"):
        tally(SURVIVORS, votes(england=Ballot(concede_to="RUSSIA")))


def test_parse_draw_powers():
    assert parse_draw_powers("aef", LETTERS) == {"AUSTRIA", "ENGLAND", "FRANCE"}
    assert parse_draw_powers("A, E F", LETTERS) == {"AUSTRIA", "ENGLAND", "FRANCE"}
    with pytest.raises(DrawError, match=r"'AXF'.*'X'.*AEFGIRT"):
        parse_draw_powers("AXF", LETTERS)
    with pytest.raises(DrawError, match="twice"):
        parse_draw_powers("AA", LETTERS)
    with pytest.raises(DrawError, match="no powers"):
        parse_draw_powers("  ", LETTERS)


def test_list_only_with_a_draw_vote():
    with pytest.raises(DrawError):
        Ballot(draw=False, draw_powers=frozenset({"ENGLAND", "FRANCE"}))


def test_missing_votes_names_only_who_has_not_voted():
    ballots = votes(england=YES, france=NO, germany=Ballot(concede_to="FRANCE"))
    assert missing_votes(SURVIVORS, ballots) == {"GERMANY", "ITALY"}


# --- display


def test_format_deadline_in_the_players_zone():
    deadline = datetime(2026, 11, 21, 19, 0, tzinfo=timezone.utc)
    assert format_deadline(deadline, "Europe/Paris") == "Sat 21 Nov 2026 20:00 CET"
    assert format_deadline(deadline, "America/New_York") == "Sat 21 Nov 2026 14:00 EST"
    assert format_deadline(deadline) == "Sat 21 Nov 2026 19:00 UTC"
    summer = datetime(2026, 7, 4, 18, 5, tzinfo=timezone.utc)
    assert format_deadline(summer, "Europe/Paris") == "Sat 4 Jul 2026 20:05 CEST"
    assert format_deadline(deadline, "Asia/Kolkata") == "Sun 22 Nov 2026 00:30 IST"


def test_format_deadline_refuses_unknown_zones_and_naive_times():
    with pytest.raises(ValueError, match="'Europe/Atlantis'"):
        format_deadline(datetime(2026, 1, 1, tzinfo=timezone.utc), "Europe/Atlantis")
    with pytest.raises(ValueError, match="aware"):
        format_deadline(datetime(2026, 1, 1), "UTC")
    assert str(zone_or_error("Europe/Paris")) == "Europe/Paris"


@pytest.mark.parametrize(
    "left, text",
    [
        (timedelta(days=2, hours=3, minutes=59), "2 days 3 hours"),
        (timedelta(days=1, minutes=5), "1 day"),
        (timedelta(hours=1, minutes=1), "1 hour 1 minute"),
        (timedelta(minutes=45, seconds=59), "45 minutes"),
        (timedelta(seconds=30), "less than a minute"),
        (timedelta(0), "passed"),
        (timedelta(hours=-2), "passed"),
    ],
)
def test_time_to_deadline(left, text):
    assert format_remaining(DEADLINE, DEADLINE - left) == text


def test_a_standing_ballot_is_carried_over_without_the_eliminated():
    from judge.turns.draws import carried_over

    alive = frozenset({"ENGLAND", "FRANCE", "RUSSIA"})
    listed = Ballot(True, frozenset({"ENGLAND", "FRANCE", "GERMANY"}), "GERMANY")
    assert carried_over(listed, alive) == Ballot(True, frozenset({"ENGLAND", "FRANCE"}), None)
    lone = Ballot(True, frozenset({"ENGLAND", "GERMANY"}), "FRANCE")
    assert carried_over(lone, alive) == Ballot(None, None, "FRANCE")  # a one-power draw lapses
    assert carried_over(Ballot(True), alive) == Ballot(True)  # all survivors: whoever they are now
    # The carried-over list passes among the survivors when every one of them votes for it.
    ballots = {"ENGLAND": carried_over(listed, alive), "FRANCE": Ballot(True, frozenset({"ENGLAND", "FRANCE"})),
               "RUSSIA": Ballot(True, frozenset({"ENGLAND", "FRANCE"}))}
    assert tally(alive, ballots, frozenset({"NO_DIAS"})).powers == frozenset({"ENGLAND", "FRANCE"})
