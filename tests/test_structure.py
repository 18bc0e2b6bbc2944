"""The import rules of docs/design.md, checked on the source: every import statement of the
project's modules (function-level ones included, ``if TYPE_CHECKING:`` blocks excluded,
since they never run), grouped by the unit that owns it (a top-level package, a
sub-package of judge/, or a top-level module of judge/)."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("adjudicator", "mailcmds", "maps", "pictures", "templates", "judge", "bot", "daide")
EDGES = ("judge.edge.smtp_in", "judge.edge.imap_in", "judge.edge.smtp_out", "judge.edge.scheduler", "judge.edge.daide",
         "judge.edge.daide_player")
PURE = ("adjudicator", "mailcmds", "pictures", "judge.turns", "judge.fair", "judge.record", "bot",
        "judge.negotiation")
DATABASE = ("sqlalchemy", "alembic", "psycopg", "judge.store")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


@lru_cache(maxsize=1)
def import_graph() -> dict[str, set[str]]:
    """module -> the names it imports (dotted; ``from a import b`` gives ``a.b``, and ``a``
    too unless ``a.b`` is a module: importing a submodule does not run its package again)."""
    graph = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = _module_name(path)
            graph[name] = _imports(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py")
    # The command registry imports the command modules by name (importlib): those edges count.
    graph["judge.commands.registry"] |= set(command_module_names())
    for name, path in _sources().items():
        graph[name] |= {literal for _, literal in dynamic_imports(path) if literal is not None}
    for name, imported in graph.items():
        packages_of_submodules = {n.rsplit(".", 1)[0] for n in imported if n in graph and "." in n}
        graph[name] = {n for n in imported
                       if not (n in packages_of_submodules and not _imports_names_of(n, imported, graph))}
    return graph


@lru_cache(maxsize=1)
def _sources() -> dict[str, Path]:
    """The project's modules by name (migrations aside)."""
    return {_module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
            if "migrations" not in path.parts}


_IMPORTERS = frozenset({"import_module", "__import__"})


def _dynamic_imports_in(tree: ast.AST) -> list[tuple[int, str | None]]:
    """The calls that import a module by name (``importlib.import_module(x)``,
    ``import_module(x)``, ``__import__(x)``): line and the name when it is a literal, None
    when it is computed."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called in _IMPORTERS:
                first = node.args[0]
                literal = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
                found.append((node.lineno, literal))
    return found


@lru_cache(maxsize=None)
def dynamic_imports(path: Path) -> list[tuple[int, str | None]]:
    return _dynamic_imports_in(ast.parse(path.read_text(encoding="utf-8")))


def _imports_names_of(package: str, imported: set[str], graph: dict[str, set[str]]) -> bool:
    """Whether some ``package.x`` imported is not a module (a name defined by the package)."""
    return any(n.rsplit(".", 1)[0] == package and n not in graph for n in imported if "." in n)


def unit_of(name: str) -> str | None:
    """The unit owning a module: ``judge.commands.join`` -> ``judge.commands``;
    ``judge.mailio.inbound`` -> ``judge.mailio.inbound``; a module outside the project -> None."""
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    if parts[0] != "judge" or len(parts) == 1:
        return parts[0]
    if (ROOT / "judge" / parts[1]).is_dir():
        return f"judge.{parts[1]}"
    return f"judge.{parts[1]}"


def unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    modules = import_graph()
    for module, imported in modules.items():
        source = unit_of(module)
        assert source is not None
        targets = graph.setdefault(source, set())
        for name in imported:
            target = unit_of(name)
            if target is not None and target != source and target != "judge":
                targets.add(target)
    return graph


def _starts(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)) is not None:
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_no_import_cycle_among_the_projects_units():
    cycle = find_cycle(unit_graph())
    assert cycle is None, " -> ".join(cycle or ())


def test_no_import_cycle_among_the_projects_modules():
    graph = {module: {n for n in imported if n in import_graph()} for module, imported in import_graph().items()}
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or ())


#: The only modules that import by a computed name, and why the import rules still see
#: every edge of the project.
NAMED_IMPORTS = {
    # finds the command modules by reading its package's sources; import_graph counts them
    "judge.commands.registry",
    # loads an operator's hook from a module outside the project; refuses a module of the
    # project that is not one of its explicitly imported BUILT_IN hooks
    "judge.daemon.hooks",
}


def test_no_edge_hides_behind_an_import_by_name():
    """An import by a computed name is an edge the import rules cannot see: wire modules by
    import statements or tables of imported modules instead (literal names are counted)."""
    hidden = [f"{path.relative_to(ROOT)}:{line}" for name, path in _sources().items() if name not in NAMED_IMPORTS
              for line, literal in dynamic_imports(path) if literal is None]
    assert not hidden, f"modules imported by a computed name: {hidden}"
    for name in NAMED_IMPORTS:
        assert any(literal is None for _, literal in dynamic_imports(_sources()[name])), f"{name} needs no exception"


def test_the_named_import_finder_finds_them():
    source = ("import importlib\nfrom importlib import import_module\n"
              "importlib.import_module(name)\nimport_module(f'judge.{x}')\n__import__('judge.mailio.inbound')\nimport_module('x', 'y')\n")
    assert _dynamic_imports_in(ast.parse(source)) == [(3, None), (4, None), (5, "judge.mailio.inbound"), (6, "x")]


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_adjudicator_imports_nothing_of_the_project():
    for module, imported in import_graph().items():
        if _starts(module, ("adjudicator",)):
            outside = {n for n in imported if unit_of(n) not in (None, "adjudicator")}
            assert not outside, f"{module} imports {sorted(outside)}"


def test_the_daide_protocol_imports_only_the_engine():
    for module, imported in import_graph().items():
        if _starts(module, ("daide",)):
            outside = {n for n in imported if unit_of(n) not in (None, "daide", "adjudicator")}
            assert not outside, f"{module} imports {sorted(outside)}"
            assert not {n for n in imported if _starts(n, DATABASE)}, module


def test_the_bot_imports_only_the_engine():
    for module, imported in import_graph().items():
        if _starts(module, ("bot",)):
            outside = {n for n in imported if unit_of(n) not in (None, "bot", "adjudicator")}
            assert not outside, f"{module} imports {sorted(outside)}"


def test_the_negotiation_imports_only_the_engine_the_bot_and_daide():
    for module, imported in import_graph().items():
        if _starts(module, ("judge.negotiation",)):
            outside = {n for n in imported if unit_of(n) not in (None, "judge.negotiation", "adjudicator", "bot", "daide")}
            assert not outside, f"{module} imports {sorted(outside)}"


def test_mailcmds_imports_only_the_engine_and_the_pure_timing_grammar():
    for module, imported in import_graph().items():
        if _starts(module, ("mailcmds",)):
            outside = {n for n in imported if unit_of(n) not in (None, "mailcmds", "adjudicator", "judge.turns")
                       and n != "judge"}
            assert not outside, f"{module} imports {sorted(outside)}"


def test_pictures_imports_only_the_engine():
    """Drawing is pure: the engine's values in, SVG text out (maps reads the files)."""
    for module, imported in import_graph().items():
        if _starts(module, ("pictures",)):
            outside = {n for n in imported if unit_of(n) not in (None, "pictures", "adjudicator")}
            assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize("pure", PURE)
def test_pure_packages_import_no_database_code(pure):
    for module, imported in import_graph().items():
        if _starts(module, (pure,)):
            database = {n for n in imported if _starts(n, DATABASE)}
            assert not database, f"{module} imports {sorted(database)}"


def test_an_edge_never_imports_another_edge():
    for module, imported in import_graph().items():
        if _starts(module, EDGES):
            own = next(edge for edge in EDGES if _starts(module, (edge,)))  # an edge may be a package
            others = {n for n in imported if _starts(n, EDGES) and not _starts(n, (own,))}
            assert not others, f"{module} imports {sorted(others)}"


#: judge/'s layers, top first: a layer imports none above it.
LAYERS = ("judge.cli", "judge.daemon", "judge.edge", "judge.commands", "judge.press", "judge.phases", "judge.publish",
          "judge.mailio", "judge.store")


def test_judges_packages_are_layered():
    """cli -> daemon -> edge -> commands -> press -> phases -> publish -> mailio -> store:
    nothing reaches back up."""
    graph = unit_graph()
    for depth, unit in enumerate(LAYERS):
        wrong = {t for t in graph.get(unit, ()) if t in LAYERS[:depth]}
        assert not wrong, f"{unit} imports {sorted(wrong)}"


def test_every_package_type_checks(tmp_path):
    # Hints are contracts everywhere, not only in the pure core: mypy holds them true in every
    # package (and, for the engine, keeps the way open to compiling it: docs/benchmarks.md,
    # "Session 6").  tests/ is not checked.  The configuration is pyproject.toml's [tool.mypy].
    from mypy import api as mypy

    paths = [str(ROOT / name) for name in (*PACKAGES, "benchmarks")]
    out, err, status = mypy.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
                                 "--no-error-summary", *paths])
    assert status == 0, out + err


STATUS_NAMES = frozenset({"PREPARATION", "FORMING", "ACTIVE", "PAUSED", "ENDED"})


def _project_sources() -> list[tuple[Path, ast.AST]]:
    roots = [ROOT / package for package in PACKAGES] + [ROOT / "benchmarks", ROOT / "tests"]
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for root in roots for path in root.rglob("*.py")
            if "migrations" not in path.parts]


def _status_lists(tree: ast.AST) -> list[int]:
    """Lines of tuple, list or set displays naming two statuses or more."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, (ast.Tuple, ast.List, ast.Set))
            and sum(isinstance(e, ast.Name) and e.id in STATUS_NAMES for e in node.elts) >= 2]


def test_statuses_come_from_the_lifecycle_alone_and_are_never_listed_elsewhere():
    """What a status permits is a predicate of judge/lifecycle.py: no other module imports
    a status from elsewhere, or writes its own list of statuses (``(ACTIVE, PAUSED)``)."""
    wrong_source, lists = [], []
    for path, tree in _project_sources():
        where = path.relative_to(ROOT)
        if where == Path("judge/lifecycle.py"):
            continue
        lists += [f"{where}:{line}" for line in _status_lists(tree)]
        wrong_source += [f"{where}:{node.lineno} from {node.module}" for node in ast.walk(tree)
                         if isinstance(node, ast.ImportFrom) and node.module != "judge.lifecycle"
                         and (node.module or "").startswith("judge")
                         and any(alias.name in STATUS_NAMES for alias in node.names)]
    assert not wrong_source, f"import statuses from judge.lifecycle: {wrong_source}"
    assert not lists, f"a list of statuses: ask a predicate of judge.lifecycle instead: {lists}"


def test_the_status_list_check_finds_a_list():
    assert _status_lists(ast.parse("if game.status in (ACTIVE, PAUSED): pass")) == [1]
    assert _status_lists(ast.parse("if game.status == ACTIVE: pass")) == []


# -- one command, one module: the registry finds them, nothing lists them ------------------

COMMANDS = ROOT / "judge" / "commands"


def _declares(tree: ast.Module, names: frozenset[str]) -> bool:
    return any(isinstance(target, ast.Name) and target.id in names
               for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))


def command_module_names() -> list[str]:
    """The modules of judge/commands declaring VERBS or HANDLERS (read from the sources, as
    the registry finds them)."""
    return [f"judge.commands.{path.stem}" for path in sorted(COMMANDS.glob("*.py"))
            if _declares(ast.parse(path.read_text(encoding="utf-8")), frozenset({"VERBS", "HANDLERS"}))]


def test_every_command_module_is_found_by_the_registry_and_is_complete():
    """A new verb needs only its module: the registry finds it, and every command class a
    command module declares has a handler and every verb is in the parser's table."""
    from judge.commands import registry
    from mailcmds import Command

    assert [module.__name__ for module in registry.MODULES] != []
    assert {module.__name__ for module in registry.MODULES} == set(command_module_names())
    declared = {value for module in registry.MODULES for value in vars(module).values()
                if isinstance(value, type) and issubclass(value, Command) and value.__module__ == module.__name__
                and not value.__subclasses__()}
    assert declared - set(registry.HANDLERS) == set(), "command classes without a handler"
    for module in registry.MODULES:
        for verb in getattr(module, "VERBS", ()):
            assert registry.VERB_TABLE.lookup(verb.words) is not None
    # who may give a command is declared once: on its handler (mailcmds' Verb has no say)
    from mailcmds.syntax import Verb
    assert "master" not in Verb.__dataclass_fields__


def _command_class_names() -> set[str]:
    names = set()
    for path in COMMANDS.glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.bases:
                names.add(node.name)
    return names


def _command_lists(tree: ast.AST, commands: set[str]) -> list[int]:
    """Lines of displays naming four command classes or more (a hand-written list of verbs),
    a command module's own HANDLERS aside."""
    found = []
    for node in ast.walk(tree):
        elements = (node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set))
                    else node.keys if isinstance(node, ast.Dict) else [])
        if sum(isinstance(e, ast.Name) and e.id in commands for e in elements) >= 4:
            found.append(node.lineno)
    return found


def test_nothing_lists_the_commands_by_hand():
    commands = _command_class_names() | {"OrderLines"}
    listed = []
    for path, tree in _project_sources():
        if "tests" in path.relative_to(ROOT).parts:
            continue
        handlers = {node.value.lineno for node in getattr(tree, "body", [])
                    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "HANDLERS"
                                                            for t in node.targets)}
        listed += [f"{path.relative_to(ROOT)}:{line}" for line in _command_lists(tree, commands) if line not in handlers]
    assert not listed, f"commands listed by hand (derive it from the command modules instead): {listed}"


def test_a_verb_that_opens_a_session_makes_a_command_that_says_so():
    """The parser asks the verb (a line that does not parse still opens a session, a failed
    one), the dispatcher the command: the two declarations, side by side in one module, agree."""
    import typing

    from judge.commands import registry

    opening = [verb for verb in registry.VERB_TABLE.verbs if verb.opens_session]
    assert {" ".join(verb.words) for verb in opening} >= {"SIGNON", "JOIN", "CREATE"}
    for verb in opening:
        made = typing.get_type_hints(verb.parse)["return"]
        assert made.opens_session, f"{' '.join(verb.words)} opens a session but {made.__name__} does not say so"
    for kind in registry.HANDLERS:
        if kind.opens_session:
            assert any(typing.get_type_hints(verb.parse).get("return") is kind for verb in opening), kind
