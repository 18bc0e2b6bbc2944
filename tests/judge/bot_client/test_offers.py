"""What the judge's bot offers its friends (judge/negotiation/offers.py, judge/negotiation/negotiator.py): an
alliance against the common threat and a DMZ of the contested border, at the levels that
allow each, never the same proposal twice and never a province refused -- as a policy, on
a position made for it."""

from __future__ import annotations

import maps
from adjudicator import api
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind
from daide.messages import from_text, to_text
from daide.tokens import TokenTable
from judge.negotiation.negotiator import Negotiator, Said, Talk, rebuilt
from judge.negotiation.offers import common_threat, contested

STANDARD = maps.load("standard")
TABLE = TokenTable.for_variant(STANDARD)
A, F = UnitKind.ARMY, UnitKind.FLEET


def _board(russia_centres: int = 6) -> api.Board:
    """Fall 1901: Turkey's army in Bulgaria reaches Austria's Serbia and its fleet in the
    Aegean Italy's fleet in the Ionian; Russia's army in Galicia reaches Vienna and Budapest
    only.  Russia leads with ``russia_centres`` (Turkey has 5)."""
    units = [Unit("VIE", A, "AUSTRIA"), Unit("BUD", A, "AUSTRIA"), Unit("TRI", F, "AUSTRIA"), Unit("SER", A, "AUSTRIA"),
             Unit("VEN", A, "ITALY"), Unit("ROM", A, "ITALY"), Unit("ION", F, "ITALY"),
             Unit("BUL", A, "TURKEY"), Unit("AEG", F, "TURKEY"), Unit("GAL", A, "RUSSIA"),
             Unit("LON", F, "ENGLAND")]
    russian = ("MOS", "WAR", "SEV", "STP", "RUM", "NWY")[:russia_centres]
    centres = {"AUSTRIA": {"VIE", "BUD", "TRI", "SER"}, "ITALY": {"VEN", "ROM", "NAP"},
               "TURKEY": {"ANK", "CON", "SMY", "BUL", "GRE"}, "RUSSIA": set(russian), "ENGLAND": {"LON"}}
    position = Position(Phase(1901, Season.FALL, PhaseKind.MOVEMENT), tuple(sorted(units)), centres)
    return api.prepare(STANDARD, position)


def _texts(outgoing) -> list[tuple[tuple[str, ...], str]]:  # type: ignore[no-untyped-def]
    return [(to, to_text(press)) for to, press in outgoing]


def test_the_common_threat_borders_both_else_it_is_the_leader_bordering_one() -> None:
    board = _board()
    assert common_threat(board, "AUSTRIA", "ITALY", {"ITALY"}) == "TURKEY"  # not Russia, the leader
    assert common_threat(board, "AUSTRIA", "ITALY", {"ITALY", "TURKEY"}) == "RUSSIA"  # Turkey a friend
    assert common_threat(_board(5), "AUSTRIA", "ITALY", {"ITALY", "TURKEY"}) is None  # no leader: a tie
    assert common_threat(board, "ITALY", "ENGLAND", {"ENGLAND"}) is None  # the leader borders neither


def test_the_contested_border_is_the_empty_provinces_both_reach_that_are_no_centre() -> None:
    board = _board()
    # Tyrolia (Vienna, Venice), the Adriatic (Trieste, Ionian), Albania (Serbia, Trieste,
    # Ionian); not Greece (a centre), Galicia (occupied) or Apulia (Austria cannot reach it)
    assert contested(board, "AUSTRIA", "ITALY") == ("ADR", "ALB", "TYR")
    assert contested(board, "AUSTRIA", "ITALY", {"ADR", "TYR"}) == ("ALB",)
    assert contested(board, "AUSTRIA", "ENGLAND") == ()


def _austria(level: int, **fields) -> Negotiator:  # type: ignore[no-untyped-def]
    """Austria at peace with Italy; Russia and Turkey offered peace before (refused)."""
    return Negotiator("AUSTRIA", TABLE, level, peace={"ITALY"}, proposed_peace={"RUSSIA", "TURKEY"}, **fields)


def test_it_offers_a_friend_an_alliance_and_a_dmz_at_the_levels_that_allow_them() -> None:
    board = _board()
    assert _texts(_austria(20).proposals(board)) == [
        (("ITALY",), "PRP (ALY (AUS ITA) VSS (TUR))"), (("ITALY",), "PRP (DMZ (AUS ITA) (ADR ALB TYR))")]
    # level 10: the alliance only (a DMZ is level 20); level 0: nothing
    assert _texts(_austria(10).proposals(board)) == [(("ITALY",), "PRP (ALY (AUS ITA) VSS (TUR))")]
    assert _austria(0).proposals(board) == []
    # peace only (the arena's peace mode): nothing to a friend
    assert _austria(20, proposing=frozenset({"PCE"})).proposals(board) == []


def test_no_alliance_against_a_power_it_offers_peace_and_no_peace_to_an_enemy() -> None:
    board = _board()
    fresh = _texts(Negotiator("AUSTRIA", TABLE, 20, peace={"ITALY"}).proposals(board))
    assert fresh[:2] == [(("RUSSIA",), "PRP (PCE (AUS RUS))"), (("TURKEY",), "PRP (PCE (AUS TUR))")]
    assert not [text for _, text in fresh if "ALY" in text]  # both neighbours courted: no threat left
    allied = Negotiator("AUSTRIA", TABLE, 20, peace={"ITALY"}, allies={"ITALY"}, enemies={"TURKEY"})
    assert [to for to, text in _texts(allied.proposals(board)) if "PCE" in text] == [("RUSSIA",)]


def test_an_offer_accepted_binds_the_core_and_one_refused_is_never_made_again() -> None:
    board = _board()
    austria = _austria(20)
    austria.proposals(board)
    assert austria.proposals(board) == []  # waiting for the answers: nothing new, nothing again
    austria.heard("ITALY", ("AUSTRIA",), from_text("YES (PRP (ALY (AUS ITA) VSS (TUR)))"), board)
    austria.heard("ITALY", ("AUSTRIA",), from_text("REJ (PRP (DMZ (AUS ITA) (ADR ALB TYR)))"), board)
    agreed = austria.agreements()
    assert agreed.allies == {"ITALY"} and agreed.enemies == {"TURKEY"} and agreed.dmz == frozenset()
    assert austria.proposals(board) == []  # the refused provinces are not offered again, in any set
    # A later phase: Turkey made peace with us; Russia, the leader, is the threat now.
    austria.peace.add("TURKEY")
    later = _texts(austria.proposals(board))
    assert (("ITALY",), "PRP (ALY (AUS ITA) VSS (RUS))") in later
    assert not [text for _, text in later if "DMZ (AUS ITA)" in text]


def test_a_refusal_is_remembered_by_the_negotiator_rebuilt_from_the_record() -> None:
    board = _board()
    live = _austria(20)
    record = [Said("AUSTRIA", to, to_text(press)) for to, press in live.proposals(board)]
    record += [Said("ITALY", ("AUSTRIA",), "REJ (PRP (ALY (AUS ITA) VSS (TUR)))"),
               Said("ITALY", ("AUSTRIA",), "REJ (PRP (DMZ (AUS ITA) (ADR ALB TYR)))")]
    again = rebuilt("AUSTRIA", TABLE, Talk(20, tuple(record)))
    again.peace.add("ITALY")  # the fixture's past, agreed before this record
    again.proposed_peace |= {"RUSSIA", "TURKEY"}
    assert again.refused == {("ITALY", "PRP (ALY (AUS ITA) VSS (TUR))"),
                             ("ITALY", "PRP (DMZ (AUS ITA) (ADR ALB TYR))")}
    assert again.proposals(board) == []


def test_two_negotiators_agree_peace_then_an_alliance_and_a_dmz_in_one_phase() -> None:
    """Each answer that makes a new friend brings the offers to it at once."""
    board = _board()
    talkers = {power: Negotiator(power, TABLE, 30) for power in ("AUSTRIA", "ITALY")}
    queue = [(power, out) for power in sorted(talkers) for out in talkers[power].proposals(board)]
    said = []
    while queue:
        sender, (recipients, press) = queue.pop(0)
        said.append(f"{sender}: {to_text(press)}")
        for power in recipients:
            if power in talkers:
                queue += [(power, answer) for answer in talkers[power].heard(sender, recipients, press, board)]
    assert "AUSTRIA: PRP (ALY (AUS ITA) VSS (TUR))" in said and "ITALY: YES (PRP (ALY (AUS ITA) VSS (TUR)))" in said
    for power, partner in (("AUSTRIA", "ITALY"), ("ITALY", "AUSTRIA")):
        agreed = talkers[power].agreements()
        assert agreed.allies == {partner} and "TURKEY" in agreed.enemies and {"ADR", "ALB", "TYR"} <= agreed.dmz
    assert len(said) < 20  # and then they stop
