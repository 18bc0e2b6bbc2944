"""mailcmds stays pure: importing it loads the standard library, at most the pure engine
types and the pure TIMING grammar (judge.turns), never the store, the commands or a driver."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
before = set(sys.modules)
import mailcmds
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_importing_mailcmds_loads_no_io_layer():
    loaded = json.loads(subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                                       text=True).stdout)
    outside_stdlib = {name for name in loaded
                      if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("_")}
    assert {name.split(".")[0] for name in outside_stdlib} <= {"mailcmds", "adjudicator", "judge"}, outside_stdlib
    judge_modules = {name for name in outside_stdlib if name.split(".")[0] == "judge"}
    assert all(name in ("judge", "judge.turns") or name.startswith("judge.turns.") for name in judge_modules)
    assert "judge.edge.scheduler" not in judge_modules, "the scheduler pass (SQLAlchemy) must not be imported"
