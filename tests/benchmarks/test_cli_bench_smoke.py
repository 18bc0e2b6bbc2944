"""benchmarks.cli_bench: the phases it draws, the spellings it writes, and a short run of the
real command through a pipe, compared with itself (a second tree: the same checkout)."""

from __future__ import annotations

import json

from benchmarks import cli_bench, cli_compare


def test_draws_movement_phases_only_and_the_same_for_the_same_seed() -> None:
    phases = cli_bench.movement_phases(20, seed=4)
    assert len(phases) == 20 and all(r["phase"].endswith("M") for r in phases)
    assert phases == cli_bench.movement_phases(20, seed=4)


def test_spellings_keep_the_meaning_readable_by_the_lenient_parser() -> None:
    names = cli_bench._province_names()
    assert cli_bench.respell("A PAR - BUR", "lower", names) == "a par - bur"
    assert cli_bench.respell("F BUL/EC S A ARM - CON", "names", names) == "fleet bulgaria (ec) supports army armenia to constantinople"
    assert cli_bench.respell("A LON - NWY VIA CONVOY", "names", names) == "army london to norway via convoy"
    batch = cli_bench.batch_text(cli_bench.movement_phases(3, seed=1), "lower").decode().splitlines()
    assert len(batch) == 3 and all(o == o.lower() for line in batch for lines in json.loads(line)["orders"].values() for o in lines)


def test_a_short_run_answers_every_phase_alike_in_both_trees(capsys) -> None:  # type: ignore[no-untyped-def]
    status = cli_bench.main(["--phases", "4", "--rounds", "1", "--no-peer", "--tree", f"again={cli_bench.HERE}"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "this" in printed and "again" in printed and "ANSWERS DIFFER" not in printed


def test_the_comparison_covers_every_spelling_and_rule_setting_and_finds_a_tree_alike(capsys) -> None:  # type: ignore[no-untyped-def]
    records = cli_compare.every_phase()[:2]
    documents = [json.loads(line) for line in cli_compare.batch(records).splitlines()]
    assert len(documents) == 2 * len(cli_compare.SPELLINGS) * len(cli_compare.RULE_SETTINGS)
    assert {tuple(d["rules"]) for d in documents} == set(cli_compare.RULE_SETTINGS)
    assert any(o == o.lower() != o.upper() for d in documents for lines in d["orders"].values() for o in lines)
    assert cli_compare.main(["--tree", f"again={cli_bench.HERE}", "--limit", "3"]) == 0
    assert "identical" in capsys.readouterr().out
