"""``judge adjudicate``: the rules engine as a JSON filter (shared/contracts/adjudicate.md).

One JSON document in (standard input or FILE), one JSON document out; with
``--batch``, JSON Lines in and one output line per input line, in order.  The
imperative shell of the engine: reading input, loading maps, printing.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import traceback
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Iterable, Mapping

from adjudicator import jsonio
from adjudicator.jsonio import ContractError
from adjudicator.mapdata import MapError
from adjudicator.notation import OrderSyntaxError
from adjudicator.types import Phase, Variant

if TYPE_CHECKING:  # the engine itself is imported when a document is answered (--help needs none of it)
    from adjudicator.results import Adjudication, OrderResult, ParsedOrders

EXIT_OK = 0
EXIT_INTERNAL = 1  # an engine bug: a traceback went to standard error
EXIT_MALFORMED = 2

# The optional rules of docs/design.md, used for --help when the engine cannot be imported.
_DOCUMENTED_RULES = ("CD_REMOVE_2023", "CONVOY_NEEDED_ONLY", "CONVOY_NO_FALLBACK", "DATC_3", "NO_BELEAGUERED_CONVOY",
                     "PARADOX_1982_DPJUDGE", "PARADOX_ALL_FAIL", "PARADOX_SZYKMAN")

_INPUT_FIELDS = frozenset(jsonio.INPUT_FIELDS)

_DESCRIPTION = "Adjudicate one phase given as JSON; print the results and the next position as JSON."

_EPILOG = """\
input (one JSON object; FILE or standard input):
  {{"map": "standard", "phase": "S1901M",
   "units":   {{"ENGLAND": ["F LON", "F EDI", "A LVP"], "FRANCE": ["F BRE", "A PAR"]}},
   "centers": {{"ENGLAND": ["EDI", "LON", "LVP"], "FRANCE": ["BRE", "MAR", "PAR"]}},
   "dislodged": {{"FRANCE": [{{"unit": "F BRE", "retreats": ["GAS", "PIC"]}}]}},
   "orders":  {{"ENGLAND": ["F LON - ENG", "fleet edinburgh moves to north sea"]}},
   "rules": []}}
  map        optional, default "standard"; maps available: {maps}
  phase      S1901M, F1901M (movement), S1901R, F1901R (retreat), W1901A (adjustment)
  units      power -> units as "A PAR" / "F STP/SC" (powers: upper-case English names)
  centers    power -> supply centres owned; needed in adjustment phases
  dislodged  retreat phases only: each dislodged unit and where it may retreat
  orders     power -> order lines, written leniently: any case, full names and
             aliases, "-" "->" "to", S/supports, C/convoys, H/holds, coasts as
             /nc (nc) "north coast", routes like "A LON-NTH-NWY", "via convoy";
             retreats "A PAR R BUR", "A PAR D"; "BUILD A PAR", "REMOVE F BRE", "WAIVE".
             Units without orders hold (movement) or disband (retreat).
  rules      optional rule names: {rules}.
             None: DATC 2.4 as the DPjudge plays it.  DATC_3: the DATC 3.0 preferences
             (2023 rulebook), that is CONVOY_NO_FALLBACK (no land route for an army
             meant to go by convoy), CONVOY_NEEDED_ONLY (a convoy order no route needs
             is void) and CD_REMOVE_2023 (civil-disorder removals by distance to owned
             centres, units on centres last); each may be chosen alone.  At most one
             PARADOX_ rule (default PARADOX_SZYKMAN).  See docs/adjudication.md.

output (one JSON object):
  {{"phase": "S1901M",
   "results": [{{"power": "ENGLAND", "order": "F LON - ENG", "result": "moves"}}, ...],
   "units": {{...after the phase, sorted by province...}},
   "dislodged": [{{"power": "FRANCE", "unit": "A MUN", "attacker_from": "BOH", "retreats": ["BER", "RUH"]}}],
   "contested": ["BUR"], "centers": {{...}}, "next_phase": "F1901M", "winner": null}}
  result is one of: moves holds supports convoys bounce cut dislodged no_convoy void
  retreats disbanded builds removes waived.  An order that cannot be understood is
  listed with result "void" and a reason quoting its text.  Orders are canonical:
  "F LON - ENG", "A PAR S A MAR - BUR", "F NTH C A LON - NWY", "A LON - NWY VIA CONVOY".

exit status:
  0  answered;  2  malformed input: the output is {{"error": "...", "detail": ...}}
  (bad JSON, unknown map, power, province, rule, bad phase, ...);  1  internal error;
  141  the reader closed standard output (as in "| head -1"): stopped quietly.
  With --batch every line is answered (a malformed line gets an error object that
  also gives its "line" number); the status is 0 when every line succeeded, 2 when
  some line was malformed, 1 after an internal error.  Blank lines are answered
  with an error object too, so output line N always belongs to input line N.
"""


def _rule_names() -> tuple[str, ...]:
    try:
        from adjudicator.api import RULES
    except ImportError:
        return _DOCUMENTED_RULES
    return tuple(sorted(RULES))


def _map_names() -> list[str]:
    import maps

    return maps.available()


def register(subparsers: Any) -> None:
    """Add ``adjudicate`` to the ``judge`` command."""
    parser = subparsers.add_parser(
        "adjudicate",
        help="adjudicate one phase given as JSON (shared/contracts/adjudicate.md)",
        description=_DESCRIPTION,
        epilog=_EPILOG.format(maps=", ".join(_map_names()), rules=", ".join(_rule_names())),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="input file (default: standard input)")
    parser.add_argument("--batch", action="store_true",
                        help="read JSON Lines: one document per line, one output line per input line")
    parser.set_defaults(func=run)


@dataclass
class Adjudicator:
    """Answers contract documents; keeps the maps it has loaded (a batch uses one or two)."""

    variants: dict[str, Variant] = field(default_factory=dict)

    def variant(self, doc: Mapping[str, Any]) -> Variant:
        import maps

        name = doc.get("map", "standard")
        if not isinstance(name, str):
            raise ContractError("map must be a string naming a map", name)
        key = name.strip().lower()
        if key not in self.variants:
            try:
                self.variants[key] = maps.load(key)
            except maps.UnknownMapError:
                raise ContractError(f"unknown map {name!r}", {"map": name, "available": maps.available()}) from None
            except MapError as error:
                raise ContractError(f"the map file of {name!r} is broken", str(error)) from None
        return self.variants[key]

    def answer(self, doc: Any) -> dict[str, Any]:
        """The output document for one input document; raises ContractError."""
        return jsonio.results_to_json(*self.adjudicate(doc))

    def answer_line(self, doc: Any) -> str:
        """The output document for one input document as one line of JSON (what
        ``json.dumps(self.answer(doc), ensure_ascii=False)`` gives); raises ContractError."""
        return jsonio.results_to_text(*self.adjudicate(doc))

    def adjudicate(self, doc: Any) -> tuple[Phase, Adjudication, list[OrderResult]]:
        """The phase of an input document, its adjudication and the results of the lines
        that could not be understood; raises ContractError."""
        from adjudicator import api
        from adjudicator.results import VOID, OrderResult

        if not isinstance(doc, dict):
            raise ContractError("the input must be a JSON object", doc)
        unknown = [] if _INPUT_FIELDS.issuperset(doc) else sorted(set(doc) - _INPUT_FIELDS)
        if unknown:
            raise ContractError(f"unknown field(s) {', '.join(map(repr, unknown))}",
                                {"unknown": unknown, "known": list(jsonio.INPUT_FIELDS)})
        variant = self.variant(doc)
        position = jsonio.position_from_json(variant, doc)
        texts = jsonio.order_texts_from_json(variant, doc)
        rules = jsonio.rules_from_json(doc, api.RULES)
        if rules:
            try:  # rules that cannot go together (two convoy-paradox rules)
                rules = api.check_rules(rules)
            except ValueError as error:
                raise ContractError(str(error), sorted(rules)) from None
        board = api.prepare(variant, position)
        orders: dict[str, ParsedOrders] = {}
        unparsed: list[OrderResult] = []  # lines not understood: listed void, quoting them
        for power, lines in texts.items():
            orders[power] = parsed = api.read_orders(board, power, lines)
            for line, reason in parsed.errors:
                unparsed.append(OrderResult(power, line.strip(), VOID, str(OrderSyntaxError(line, reason))))
        return position.phase, api.adjudicate(board, orders, rules), unparsed


def _error(error: ContractError, **extra: Any) -> dict[str, Any]:
    return {**jsonio.error_to_json(error), **extra}


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ContractError(f"bad JSON: {error.msg}", {"line": error.lineno, "column": error.colno}) from None


def _write(out: IO[str], doc: Mapping[str, Any], indent: int | None) -> None:
    out.write(json.dumps(doc, indent=indent, ensure_ascii=False))
    out.write("\n")


def run_single(text: str, out: IO[str], engine: Adjudicator) -> int:
    try:
        if not text.strip():
            raise ContractError("no input: expected one JSON document", None)
        _write(out, engine.answer(_decode(text)), 2)
        return EXIT_OK
    except ContractError as error:
        _write(out, _error(error), 2)
        return EXIT_MALFORMED


def run_batch(lines: Iterable[str], out: IO[str], err: IO[str], engine: Adjudicator) -> int:
    status = EXIT_OK
    for number, line in enumerate(lines, start=1):
        try:
            if not line.strip():
                raise ContractError("empty line: expected one JSON document per line", None)
            answer = engine.answer_line(_decode(line))
        except ContractError as error:
            answer = json.dumps(_error(error, line=number), ensure_ascii=False)
            status = status if status == EXIT_INTERNAL else EXIT_MALFORMED
        except Exception as error:  # an engine bug: answer the line, keep going, say so
            err.write(f"judge adjudicate: internal error on line {number}:\n{traceback.format_exc()}")
            answer = json.dumps({"error": f"internal error: {type(error).__name__}: {error}", "detail": None, "line": number},
                                ensure_ascii=False)
            status = EXIT_INTERNAL
        # Written outside the guard: a reader that went away (BrokenPipeError) ends the
        # command (judge.cli), it is no error of this line.
        out.write(answer)
        out.write("\n")
        out.flush()
    return status


def run(args: argparse.Namespace) -> int:
    engine = Adjudicator()
    if args.file == "-":
        source: IO[str] = sys.stdin
        if isinstance(source, io.TextIOWrapper):  # undecodable bytes become U+FFFD, then a clear error
            source.reconfigure(errors="replace")
    else:
        try:
            source = open(args.file, encoding="utf-8", errors="replace")
        except OSError as error:
            _write(sys.stdout, _error(ContractError(f"cannot read {args.file!r}: {error.strerror}", args.file)), 2)
            return EXIT_MALFORMED
    try:
        if args.batch:
            return run_batch(source, sys.stdout, sys.stderr, engine)
        return run_single(source.read(), sys.stdout, engine)
    finally:
        if source is not sys.stdin:
            source.close()
