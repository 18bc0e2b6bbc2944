"""Map pictures: drawing a standard-map phase with all its orders, SVG and PNG.

    python -m benchmarks.render_bench [--repeat 30]
    python -m benchmarks.render_bench --maps [--repeat 10]    # every map's results picture, as mailed

The phase is Spring 1901 with an order for each of the 22 units (moves, supports, a
convoy, bounces).  Ours, timed: ``scene_after`` (the engine's results read back into
drawn orders) + ``draw_svg``, then ``svg_to_png``; the adjudication itself is setup.
The peer, MILA ``diplomacy`` 1.1.2 (``Renderer.render(incl_orders=True)``), draws the
same orders on its own SVG map; it makes no PNG, so its SVG is also put through our
PNG step to compare like with like.  Each figure is the median (and best) of
``--repeat`` runs in one process, wall clock and CPU clock; the goal is SVG + PNG under
150 ms.

``--maps`` times, for every shipped map, the results picture of its first phase as the
judge draws it for a results mail (``judge.phases.pictures``: scene, SVG, and the PNG
within the mail's byte and pixel caps; the memo of drawings bypassed), with each unit
ordered to its first neighbour so that arrows and bounces are drawn; the goal is at most
100 kB of PNG and 150 ms.  "first" is the CPU time of the map's first picture in the
process (the first map's includes loading cairo and the fonts).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Callable, Sequence

from benchmarks.openings import SPRING_1901

# The usual opening with supports and a bounce, so that every kind of line is drawn.
ORDERS = dict(SPRING_1901,
              FRANCE=["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"],
              GERMANY=["A MUN - BUR", "A BER - KIE", "F KIE - DEN"],
              TURKEY=["F ANK - BLA", "A CON - BUL", "A SMY S A CON - BUL"])


def _timed(work: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    """(median wall, best wall, median CPU) milliseconds of ``repeat`` runs of ``work`` after
    one warm-up run.  The CPU clock (this process) shows the cost on a busy machine too."""
    work()
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per figure (default 30)")
    parser.add_argument("--maps", action="store_true", help="every map's results picture as the judge mails it")
    args = parser.parse_args(argv)
    if args.maps:
        return _every_map(args.repeat)

    import maps
    from adjudicator import api
    from pictures import draw_svg, scene_after, svg_to_png

    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    position = api.initial_position(variant)
    board = api.prepare(variant, position)
    outcome = api.adjudicate(board, {p: api.parse_orders(board, p, lines) for p, lines in ORDERS.items()})

    def our_svg() -> str:
        scene = scene_after(variant, "S1901M", outcome.position, outcome.results)
        return draw_svg(variant, geometry, scene)

    svg = our_svg()
    figures = {
        "ours: SVG": _timed(our_svg, args.repeat),
        "ours: PNG from our SVG": _timed(lambda: svg_to_png(svg), args.repeat),
        "ours: SVG + PNG": _timed(lambda: svg_to_png(our_svg()), args.repeat),
    }
    try:
        from diplomacy import Game
        from diplomacy.engine.renderer import Renderer
    except ImportError:
        print("peer not installed (pip install -e '.[bench]'): ours only")
    else:
        game = Game()
        for power, lines in ORDERS.items():
            game.set_orders(power, lines)
        renderer = Renderer(game)
        peer_svg = renderer.render(incl_orders=True)
        figures["peer: SVG"] = _timed(lambda: renderer.render(incl_orders=True), args.repeat)
        figures["peer: SVG, then our PNG step"] = _timed(lambda: svg_to_png(renderer.render(incl_orders=True)), args.repeat)
        print(f"sizes: our SVG {len(svg)} bytes, our PNG {len(svg_to_png(svg))} bytes, peer SVG {len(peer_svg)} bytes")
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, repeat {args.repeat}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, (median, best, cpu) in figures.items():
        print(f"{name:34s} wall median {median:7.1f} ms, best {best:7.1f} ms; CPU median {cpu:7.1f} ms")
    return 0


def _every_map(repeat: int) -> int:
    import io
    import json
    import math

    import maps
    from adjudicator import api
    from adjudicator.jsonio import position_to_json
    from PIL import Image

    from judge.phases.pictures import MAIL_PNG_PIXELS, _drawing
    from pictures.svg import picture_size

    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, repeat {repeat}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for name in maps.available():
        variant = maps.load(name)
        position = api.initial_position(variant)
        board = api.prepare(variant, position)
        lines: dict[str, list[str]] = {}
        for unit in position.units:
            moves = variant.army_moves.get(unit.location) if unit.kind.value == "A" else variant.fleet_moves.get(unit.location)
            target = min(moves) if moves else None
            lines.setdefault(unit.power, []).append(f"{unit.kind.value} {unit.location} - {target}" if target
                                                    else f"{unit.kind.value} {unit.location} H")
        outcome = api.adjudicate(board, {p: api.parse_orders(board, p, ls) for p, ls in lines.items()})
        after = json.dumps(position_to_json(outcome.position, name), sort_keys=True, separators=(",", ":"))
        results = json.dumps([{"power": r.power, "order": r.order, "result": r.result} for r in outcome.results],
                             sort_keys=True, separators=(",", ":"))
        draw = _drawing.__wrapped__
        # the first picture of a map in a process also sets its outlines and labels once
        # (pictures.raster, pictures.lettering); the median is every later phase's
        start_cpu = time.process_time()
        svg, png = draw(name, f"bench {position.phase}", str(position.phase), after, results)
        first = (time.process_time() - start_cpu) * 1000
        median, best, cpu = _timed(lambda: draw(name, f"bench {position.phase}", str(position.phase), after, results), repeat)
        # the width the mail's pixel cap allows, against the width drawn: below 100 %, the
        # picture was drawn smaller to fit the byte cap
        width, height = picture_size(variant, maps.load_geometry(name))
        allowed = width * min(1.0, math.sqrt(MAIL_PNG_PIXELS / (width * height)))
        drawn = Image.open(io.BytesIO(png)).width
        print(f"{name:24s} {len(variant.provinces):3d} provinces  SVG {len(svg) / 1000:5.1f} kB  PNG {len(png) / 1000:5.1f} kB  "
              f"{drawn:4d} px wide ({100 * drawn / allowed:3.0f} % of the cap's)  "
              f"wall median {median:6.1f} ms, best {best:6.1f} ms; CPU median {cpu:6.1f} ms, first {first:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
