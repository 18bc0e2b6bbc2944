"""The engine comparison's outcome shape (benchmarks/outcome.py)."""

from benchmarks.outcome import Outcome


def test_the_provinces_involved_are_those_the_differences_name():
    ours = Outcome(units=frozenset({("FRANCE", "A PAR"), ("ENGLAND", "F SPA/NC")}),
                   dislodged=frozenset({("ITALY", "A VEN", ("TUS", "APU"))}),
                   centers=frozenset({("FRANCE", "BEL")}), next_phase="F1901M")
    peer = Outcome(units=frozenset({("FRANCE", "A PAR"), ("ENGLAND", "F MAO")}),
                   dislodged=frozenset(), centers=frozenset({("GERMANY", "BEL"), ("FRANCE", "BRE")}),
                   next_phase="F1901M")
    assert ours.provinces_involved(peer) == {"SPA", "MAO", "VEN", "TUS", "APU", "BEL", "BRE"}
    assert ours.provinces_involved(ours) == frozenset()
