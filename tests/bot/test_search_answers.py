"""The search's caches change its speed, not its answers: at a fixed iteration count the bot
chooses, on 20 phases of the shipped corpus, the orders the search chose before the caches
(computed by commit 1c45ff8 and stored in data/search_answers.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator import api
from adjudicator.jsonio import position_from_json
from adjudicator.orders import Hold, Move
from bot.player import Budget
from bot.search import StrategicBot

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "benchmarks" / "data" / "corpus-s1-g12-y10.jsonl"
ANSWERS = json.loads((HERE / "data" / "search_answers.json").read_text())["answers"]


@pytest.fixture(scope="module")
def corpus_lines() -> list[str]:
    return CORPUS.read_text().splitlines()


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"{a['phase']}-{a['power']}-{a['line']}" for a in ANSWERS])
def test_the_search_chooses_the_orders_it_chose_before_its_caches(standard, corpus_lines, answer):
    document = json.loads(corpus_lines[answer["line"] - 1])
    board = api.prepare(standard, position_from_json(standard, document))
    chosen, report = StrategicBot(answer["seed"], Budget(iterations=60, seconds=None)).search(board, answer["power"])
    assert report.iterations == 60
    assert sorted(o.canonical() for o in chosen) == answer["orders"]


def test_checked_orders_adjudicate_as_plain_ones_illegal_ones_void(standard):
    board = api.prepare(standard, api.initial_position(standard))
    plain = {"FRANCE": [api.parse_order(board, "FRANCE", "A PAR - BUR")],
             "GERMANY": [api.parse_order(board, "GERMANY", "A MUN - BUR")]}
    far = Move(board.units["BER"], "PAR")  # not a neighbour: void
    stray = Hold(board.units["MUN"])  # Germany's unit, ordered by France: void
    given = {"FRANCE": [*plain["FRANCE"], stray], "GERMANY": [far, *plain["GERMANY"]]}
    checked = {p: api.check_orders(board, p, o) for p, o in given.items()}
    assert [line.order for line in checked["GERMANY"].illegal] == [far]
    assert [line.order for line in checked["FRANCE"].illegal] == [stray]
    once, plain_outcome = api.adjudicate(board, checked), api.adjudicate(board, given)
    assert once.results == plain_outcome.results and once.dislodged == plain_outcome.dislodged
    assert api.position_digest(once.position) == api.position_digest(plain_outcome.position)
    assert {r.order: r.result for r in once.results}["A BER - PAR"] == "void"
