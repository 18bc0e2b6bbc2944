"""``judge adjudicate`` as users run it: a real subprocess, real JSON in and out.

Starting ``judge`` costs a second or more (every command module is imported), so
the many small variations (malformed inputs, a phase sequence) go through the same
entry points in-process (``run_single`` / ``run_batch``), and the subprocess tests
cover what only a process shows: exit status, stdin, FILE, --batch, --help.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge.cli.adjudicate import Adjudicator, run_single

REPO_ROOT = Path(__file__).resolve().parents[2]

OPENING = {
    "map": "standard",
    "phase": "S1901M",
    "units": {
        "AUSTRIA": ["A BUD", "A VIE", "F TRI"], "ENGLAND": ["F EDI", "F LON", "A LVP"],
        "FRANCE": ["F BRE", "A MAR", "A PAR"], "GERMANY": ["A BER", "F KIE", "A MUN"],
        "ITALY": ["F NAP", "A ROM", "A VEN"], "RUSSIA": ["A MOS", "F SEV", "F STP/SC", "A WAR"],
        "TURKEY": ["F ANK", "A CON", "A SMY"],
    },
    "orders": {
        "ENGLAND": ["F LON - ENG", "fleet edinburgh moves to north sea", "A LVP-YOR"],
        "FRANCE": ["F BRE - MAO", "A PAR - BUR", "A MAR S A PAR - BUR"],
        "GERMANY": ["F KIE - DEN", "A MUN - RUH", "A BER - KIE"],
        "RUSSIA": ["F STP - BOT", "A WAR - GAL", "A MOS - UKR", "F SEV - BLA"],
        "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - CON"],
        "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
        "ITALY": ["A VEN H", "F NAP - ION", "A ROM - APU"],
    },
    "rules": [],
}


def adjudicate(payload: str, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "adjudicate", *args],
        input=payload, capture_output=True, text=True, env=env, timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


def answer(doc: Any, *args: str) -> tuple[int, dict[str, Any]]:
    status, out, _ = adjudicate(json.dumps(doc), *args)
    return status, json.loads(out)


def answer_in_process(payload: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    status = run_single(payload, out, Adjudicator())
    return status, json.loads(out.getvalue())


def results_of(doc: dict[str, Any]) -> dict[str, str]:
    return {r["order"]: r["result"] for r in doc["results"]}


def test_spring_1901_openings():
    status, out = answer(OPENING)
    assert status == 0
    results = results_of(out)
    assert results["F LON - ENG"] == "moves"
    assert results["F EDI - NTH"] == "moves"  # written with full names, reported canonically
    assert results["A LVP - YOR"] == "moves"
    assert results["F STP/SC - BOT"] == "moves"  # the coast comes from the board
    assert results["A WAR - GAL"] == results["A VIE - GAL"] == "bounce"
    assert results["F SEV - BLA"] == results["F ANK - BLA"] == "bounce"
    assert results["A MAR S A PAR - BUR"] == "supports"
    assert results["A VEN H"] == "holds"
    assert out["next_phase"] == "F1901M"
    assert out["winner"] is None
    assert out["dislodged"] == []
    assert sorted(out["contested"]) == ["BLA", "GAL"]
    assert out["units"]["ENGLAND"] == ["F ENG", "F NTH", "A YOR"]  # sorted by province
    assert out["units"]["RUSSIA"] == ["F BOT", "F SEV", "A UKR", "A WAR"]


def test_an_order_that_cannot_be_understood_is_void_with_its_text_quoted():
    doc = {**OPENING, "orders": {"ENGLAND": ["F LON - ENG", "A LVP - Atlantis"]}}
    status, out = answer_in_process(json.dumps(doc))
    assert status == 0
    void = [r for r in out["results"] if r["result"] == "void"]
    assert len(void) == 1
    assert void[0]["power"] == "ENGLAND"
    assert void[0]["order"] == "A LVP - Atlantis"
    assert "'A LVP - Atlantis'" in void[0]["reason"] and "'ATLANTIS' is not a province" in void[0]["reason"]
    assert "A LVP" in out["units"]["ENGLAND"]  # the army held


def test_an_illegal_order_is_adjudicated_not_refused():
    doc = {**OPENING, "orders": {"ENGLAND": ["F LON - PAR"]}}
    status, out = answer_in_process(json.dumps(doc))
    assert status == 0
    assert results_of(out)["F LON - PAR"] == "void"


def test_a_fall_movement_retreat_and_winter_in_sequence():
    def answer(doc: Any) -> tuple[int, dict[str, Any]]:
        return answer_in_process(json.dumps(doc))

    fall = {
        "phase": "F1901M",
        "units": {"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN", "F KIE"]},
        "centers": {"FRANCE": ["BRE", "MAR", "PAR"], "GERMANY": ["BER", "KIE", "MUN"]},
        "orders": {"FRANCE": ["A BUR - MUN", "A RUH S A BUR - MUN"], "GERMANY": ["A MUN H"]},
    }
    status, moved = answer(fall)
    assert status == 0
    assert results_of(moved)["A MUN H"] == "dislodged"
    assert moved["next_phase"] == "F1901R"
    [entry] = moved["dislodged"]
    assert entry["unit"] == "A MUN" and entry["power"] == "GERMANY" and entry["attacker_from"] == "BUR"
    assert "BUR" not in entry["retreats"] and "RUH" not in entry["retreats"] and "BER" in entry["retreats"]

    retreat = {
        "phase": moved["next_phase"],
        "units": moved["units"],
        "centers": moved["centers"],
        "dislodged": {entry["power"]: [{"unit": entry["unit"], "retreats": entry["retreats"]}]},
        "orders": {"GERMANY": ["A MUN R BER"]},
    }
    status, retreated = answer(retreat)
    assert status == 0
    assert results_of(retreated) == {"A MUN R BER": "retreats"}
    assert retreated["next_phase"] == "W1901A"
    assert retreated["centers"]["FRANCE"] == ["BRE", "MAR", "MUN", "PAR"]  # centres change after Fall
    assert retreated["centers"]["GERMANY"] == ["BER", "KIE"]

    winter = {
        "phase": retreated["next_phase"],
        "units": retreated["units"],
        "centers": retreated["centers"],
        "orders": {"FRANCE": ["BUILD A PAR", "waive"]},  # 4 centres, 2 units
    }
    status, built = answer(winter)
    assert status == 0
    assert results_of(built) == {"A PAR B": "builds", "WAIVE": "waived"}
    assert built["next_phase"] == "S1902M"
    assert built["units"]["FRANCE"] == ["A MUN", "A PAR", "A RUH"]


@pytest.mark.parametrize(
    "payload, error",
    [
        ("{not json", "bad JSON"),
        ("", "no input"),
        ("[1, 2]", "the input must be a JSON object"),
        (json.dumps({**OPENING, "map": "atlantis"}), "unknown map 'atlantis'"),
        (json.dumps({**OPENING, "rules": ["NO_SUCH_RULE"]}), "unknown rule 'NO_SUCH_RULE'"),
        (json.dumps({**OPENING, "orders": {"ATLANTIS": ["A PAR H"]}}), "unknown power 'ATLANTIS' in orders"),
        (json.dumps({**OPENING, "phase": "1901"}), "bad phase '1901'"),
        (json.dumps({**OPENING, "order": {}}), "unknown field(s) 'order'"),
        (json.dumps({**OPENING, "units": {"FRANCE": ["A ENG"]}}), "an army cannot stand on ENG"),
    ],
)
def test_malformed_input_gives_an_error_object(payload, error):
    status, doc = answer_in_process(payload)
    assert status == 2
    assert set(doc) == {"error", "detail"}
    assert error in doc["error"]


def test_malformed_input_exits_2_from_the_command():
    status, out, _ = adjudicate("{not json")
    assert status == 2
    assert json.loads(out) == {"error": "bad JSON: Expecting property name enclosed in double quotes",
                               "detail": {"line": 1, "column": 2}}
    status, doc = answer({**OPENING, "map": "atlantis"})
    assert status == 2
    assert doc["error"] == "unknown map 'atlantis'"
    assert "standard" in doc["detail"]["available"]


def test_file_argument(tmp_path):
    path = tmp_path / "phase.json"
    path.write_text(json.dumps(OPENING))
    status, out, _ = adjudicate("", str(path))
    assert status == 0
    assert json.loads(out)["next_phase"] == "F1901M"
    status, out, _ = adjudicate("", str(tmp_path / "missing.json"))
    assert status == 2
    assert "cannot read" in json.loads(out)["error"]


def test_batch_answers_every_line_in_order():
    lines = [
        json.dumps(OPENING),
        "{broken",
        "",
        json.dumps({**OPENING, "orders": {"ENGLAND": ["F LON - NTH", "F EDI - NTH"]}}),
    ]
    status, out, _ = adjudicate("\n".join(lines) + "\n", "--batch")
    assert status == 2  # some line was malformed
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == 4
    assert answers[0]["next_phase"] == "F1901M"
    assert answers[1]["line"] == 2 and "bad JSON" in answers[1]["error"]
    assert answers[2]["line"] == 3 and "empty line" in answers[2]["error"]
    assert results_of(answers[3])["F LON - NTH"] == "bounce"


def test_batch_answers_each_line_before_the_next_is_written():
    """A client that waits for each answer before writing its next line gets it (the answers
    are written out whenever no whole line is waiting), and lines split at "\\n" only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    child = subprocess.Popen([sys.executable, "-m", "judge.cli", "adjudicate", "--batch"], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    try:
        for phase in ("S1901M", "F1901M"):
            child.stdin.write(json.dumps({**OPENING, "phase": phase}).encode() + b"\r\n")  # "\r": JSON's whitespace
            child.stdin.flush()
            ready, _, _ = select.select([child.stdout], [], [], 60)
            assert ready, f"no answer to the {phase} line while the client waits for it"
            assert json.loads(child.stdout.readline())["phase"] == phase
        child.stdin.write(json.dumps(OPENING).encode())  # the last line, without a newline
        child.stdin.close()
        assert json.loads(child.stdout.readline())["next_phase"] == "F1901M"
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
        child.wait()


def test_batch_stops_quietly_when_its_reader_goes_away(tmp_path):
    """``judge adjudicate --batch FILE | head -1``: once the reader has closed the pipe, the
    command stops with a shell's status for SIGPIPE and writes no traceback."""
    path = tmp_path / "phases.jsonl"
    path.write_text((json.dumps(OPENING) + "\n") * 400)  # far more answers than a pipe holds
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    child = subprocess.Popen([sys.executable, "-m", "judge.cli", "adjudicate", "--batch", str(path)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    assert json.loads(child.stdout.readline())["next_phase"] == "F1901M"
    child.stdout.close()
    assert child.wait(timeout=60) == 141
    assert child.stderr.read() == b""


def test_a_broken_pipe_that_is_not_standard_output_is_still_reported(monkeypatch):
    import judge.cli.adjudicate
    from judge import cli

    def lost_socket(args: Any) -> int:
        raise BrokenPipeError(32, "a peer closed its socket")

    monkeypatch.setattr(judge.cli.adjudicate, "run", lost_socket)
    with pytest.raises(BrokenPipeError):
        cli.main(["adjudicate"])


def test_batch_of_good_lines_exits_0(tmp_path):
    path = tmp_path / "phases.jsonl"
    path.write_text(json.dumps(OPENING) + "\n" + json.dumps(OPENING) + "\n")
    status, out, _ = adjudicate("", "--batch", str(path))
    assert status == 0
    first, second = out.splitlines()
    assert first == second  # deterministic


def test_help_documents_input_output_and_rules():
    done = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for needle in ("--batch", "phase", "units", "centers", "dislodged", "orders", "next_phase",
                   "PARADOX_SZYKMAN", "NO_BELEAGUERED_CONVOY", "DATC_3", "CONVOY_NO_FALLBACK",
                   "CONVOY_NEEDED_ONLY", "CD_REMOVE_2023", "exit status", "void", "standard"):
        assert needle in done.stdout


def test_datc_3_rules_through_the_command_in_one_batch():
    # One batch, four documents: DATC 6.G.8 (an army VIA CONVOY with no fleet to carry it)
    # and a civil-disorder removal (DATC 3.0 6.J.11), each under the default rules and DATC_3.
    via = {"map": "standard", "phase": "S1901M",
           "units": {"FRANCE": ["A BEL"], "ENGLAND": ["F NTH", "A HOL"]},
           "orders": {"FRANCE": ["A BEL - HOL VIA CONVOY"], "ENGLAND": ["F NTH - HEL", "A HOL - KIE"]}}
    removal = {"map": "standard", "phase": "W1901A", "units": {"ITALY": ["A WAR", "A TUS"]},
               "centers": {"ITALY": ["WAR"]}, "orders": {}}
    lines = [json.dumps({**doc, "rules": rules}) for doc in (via, removal) for rules in ([], ["DATC_3"])]
    status, out, err = adjudicate("\n".join(lines) + "\n", "--batch")
    assert status == 0, err
    old_via, new_via, old_removal, new_removal = map(json.loads, out.splitlines())
    assert old_via["units"]["FRANCE"] == ["A HOL"]  # DATC 2.4: the land route as fallback
    assert new_via["units"]["FRANCE"] == ["A BEL"]
    assert {"power": "FRANCE", "order": "A BEL - HOL VIA CONVOY", "result": "no_convoy"} in new_via["results"]
    assert old_removal["units"]["ITALY"] == ["A TUS"]  # DATC 2.4: Warsaw is farthest from Italy's homes
    assert new_removal["units"]["ITALY"] == ["A WAR"]  # 2023: it stands on its owned centre
    assert {"power": "ITALY", "order": "A TUS D", "result": "removes", "reason": "civil disorder"} in new_removal["results"]


@pytest.mark.skipif(shutil.which("judge") is None, reason="the judge console script is not installed")
def test_console_script():
    done = subprocess.run(["judge", "adjudicate"], input=json.dumps(OPENING), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert json.loads(done.stdout)["phase"] == "S1901M"


def test_every_line_of_a_power_is_answered_in_its_order():
    # ENGLAND: a canonical line, an illegal one, a blank one, an unreadable one and a later
    # order for a unit already ordered (the later counts): the good lines stay on the fast
    # path beside the others (api.read_orders), as FRANCE's do.  Both ways of answering agree.
    doc = {**OPENING, "orders": {
        "ENGLAND": ["F LON - ENG", "F EDI - PAR", "", "A LVP - Atlantis", "f edi - nth", "A LVP H"],
        "FRANCE": ["A PAR - BUR", "A MAR S A PAR - BUR"],
    }}
    engine = Adjudicator()
    line = engine.answer_line(doc)
    assert json.loads(line) == engine.answer(doc)
    results = [(r["power"], r["order"], r["result"]) for r in json.loads(line)["results"] if r["power"] in ("ENGLAND", "FRANCE")]
    assert results == [
        ("ENGLAND", "F EDI - NTH", "moves"),  # the later order for EDI replaced the illegal one
        ("ENGLAND", "F LON - ENG", "moves"),
        ("ENGLAND", "A LVP H", "holds"),
        ("ENGLAND", "", "void"),  # the blank line, quoted as it was (stripped)
        ("ENGLAND", "A LVP - Atlantis", "void"),
        ("FRANCE", "F BRE H", "holds"),
        ("FRANCE", "A MAR S A PAR - BUR", "supports"),
        ("FRANCE", "A PAR - BUR", "moves"),
    ]


def test_lower_case_and_full_names_answer_as_canonical_lines_do():
    engine = Adjudicator()
    canonical = engine.answer_line(OPENING)
    lower = {**OPENING, "orders": {p: [o.lower() for o in lines] for p, lines in OPENING["orders"].items()}}
    assert engine.answer_line(lower) == canonical
    named = {**OPENING, "orders": {**OPENING["orders"], "FRANCE": ["fleet brest to mid-atlantic ocean", "army paris moves to burgundy",
                                                                   "army marseilles supports army paris to burgundy"]}}
    assert engine.answer_line(named) == canonical
