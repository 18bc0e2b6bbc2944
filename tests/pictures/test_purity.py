"""pictures is pure drawing code: importing it loads the standard library and the engine's
values only (CairoSVG and Pillow are loaded when a PNG is made, never the store)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
before = set(sys.modules)
import pictures, pictures.generate
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_importing_pictures_loads_only_the_engine_and_the_standard_library():
    loaded = json.loads(subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                                       text=True).stdout)
    outside_stdlib = {name.split(".")[0] for name in loaded
                      if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("_")}
    assert outside_stdlib == {"pictures", "adjudicator"}, outside_stdlib
