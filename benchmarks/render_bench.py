"""Map pictures: drawing a standard-map phase with all its orders, SVG and PNG.

    python -m benchmarks.render_bench [--repeat 30]

The phase is Spring 1901 with an order for each of the 22 units (moves, supports, a
convoy, bounces).  Ours, timed: ``scene_after`` (the engine's results read back into
drawn orders) + ``draw_svg``, then ``svg_to_png``; the adjudication itself is setup.
The peer, MILA ``diplomacy`` 1.1.2 (``Renderer.render(incl_orders=True)``), draws the
same orders on its own SVG map; it makes no PNG, so its SVG is also put through our
PNG step to compare like with like.  Each figure is the median (and best) of
``--repeat`` runs in one process, wall clock and CPU clock; the goal is SVG + PNG under
150 ms.
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
    args = parser.parse_args(argv)

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


if __name__ == "__main__":
    raise SystemExit(main())
