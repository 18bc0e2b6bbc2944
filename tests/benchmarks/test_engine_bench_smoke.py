"""The benchmark harness on a handful of phases: a correctness check, not a timing.

Both engines must leave the same board (units, dislodged units and their
retreats, centres, next phase) after busy movement phases (supports, convoys,
dislodgements), retreat phases and adjustment phases of the shipped corpus.
"""

from __future__ import annotations

import pytest

pytest.importorskip("diplomacy", reason="the peer engine is the 'bench' extra")

from benchmarks import engine_bench, known, ours, peer, positions  # noqa: E402


def _corpus() -> list[positions.Record]:
    return positions.ensure_corpus()


def _pick(records: list[positions.Record]) -> list[tuple[int, positions.Record]]:
    """The busiest movement phases (convoys and many supports), and the first retreat and adjustment
    phases, leaving out the disagreements already judged (``benchmarks.known``)."""
    indexed = [(i, r) for i, r in enumerate(records) if i + 1 not in known.KNOWN_LINES]

    def business(record: positions.Record) -> int:
        lines = [line for power_lines in record["orders"].values() for line in power_lines]
        return 3 * sum(" C " in line for line in lines) + sum(" S " in line for line in lines)

    movement = sorted((item for item in indexed if item[1]["phase"].endswith("M")), key=lambda item: -business(item[1]))
    retreat = [item for item in indexed if item[1]["phase"].endswith("R")]
    adjustment = [item for item in indexed if item[1]["phase"].endswith("A")]
    return sorted(movement[:6] + retreat[:3] + adjustment[:3])


def test_both_engines_agree_on_busy_phases() -> None:
    unavailable = ours.engine_available()
    if unavailable:
        pytest.skip(unavailable)
    chosen = _pick(_corpus())
    assert {record["phase"][-1] for _, record in chosen} == {"M", "R", "A"}
    disagreements = engine_bench.compare(chosen)
    assert not disagreements, "\n".join(d.render(full=True) for d in disagreements)


def test_peer_replays_its_own_games_from_the_records() -> None:
    """Set up from a record, the peer reaches exactly the board of the game's next record."""
    records = positions.generate_corpus(seed=7, games=1, years=2)
    assert {record["phase"][-1] for record in records} >= {"M", "A"}
    for record, following in zip(records, records[1:]):
        phase = peer.PeerPhase.from_record(record)
        game = phase.new_game()
        phase.run(game)
        outcome = peer.outcome_of(game, record["phase"])
        assert outcome.next_phase == following["phase"]
        assert outcome.units == {(p, u) for p, units in following["units"].items() for u in units}
        assert outcome.centers == {(p, c) for p, centers in following["centers"].items() for c in centers}


def test_corpus_generation_is_deterministic() -> None:
    assert positions.generate_corpus(seed=3, games=1, years=1) == positions.generate_corpus(seed=3, games=1, years=1)


def test_known_disagreements_still_disagree_as_documented() -> None:
    """docs/benchmarks.md lists these verdicts: if one stops disagreeing, the document is stale."""
    unavailable = ours.engine_available()
    if unavailable:
        pytest.skip(unavailable)
    records = _corpus()
    lines = sorted(known.KNOWN_LINES)
    found = engine_bench.compare([(line - 1, records[line - 1]) for line in lines])
    assert [d.index + 1 for d in found] == lines


def test_both_schedules_time_every_phase_and_agree() -> None:
    """``blocks`` and ``alternate`` time the same phases the same number of times and find the same disagreements."""
    unavailable = ours.engine_available()
    if unavailable:
        pytest.skip(unavailable)
    records = _corpus()
    known_line = min(known.KNOWN_LINES)
    chosen = sorted(_pick(records)[:2] + [(known_line - 1, records[known_line - 1])])  # agreeing and not
    found = {}
    for schedule in engine_bench.SCHEDULES:
        timings = engine_bench.Timings()
        disagreements = engine_bench.compare(chosen, repeat=2, timings=timings, schedule=schedule)
        found[schedule] = [d.index + 1 for d in disagreements]
        timed = sum(len(times) for times in timings.ours.values())
        assert timed == sum(len(times) for times in timings.peer.values()) == len(chosen)
        assert all(t > 0 for times in timings.ours.values() for t in times)
    assert found["blocks"] == found["alternate"] == [known_line]
    with pytest.raises(ValueError, match="'interleaved'"):
        engine_bench.compare(chosen, schedule="interleaved")
