"""Every command, found from the command modules: nothing here lists a verb.

A command module is a module of this package that defines ``VERBS`` (its verbs: words,
syntax, parse function, HELP rows) or ``HANDLERS`` (command class -> ``Handler``: the
function that carries it out and who may give it), both at its top level.  They are found
by reading the package's sources (so a module that is not one is not imported, and may
itself use this registry), imported, and tests/test_structure.py counts those imports as
edges.  Derived from them:

    VERB_TABLE                  the parser's, the password masking's and HELP's table
    HANDLERS, handler_for(cls)  the dispatcher's table (a class with no handler: KeyError)
    parse_mail, parse_text      mailcmds' parser over VERB_TABLE
    masked, redacted            mailcmds' password masking over VERB_TABLE

``python -m judge.commands.help_docs`` writes the documents made from the verbs
(mailcmds/help.txt and the generated blocks of mailcmds/grammar.md and README.md).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
from email.message import Message
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Iterable, Mapping

import mailcmds
from mailcmds import Attachment, Command, ParsedMail, help_page, masking
from mailcmds.registry import VerbTable
from mailcmds.syntax import Verb

from judge.commands.handler import Handler

_DECLARATIONS = frozenset({"VERBS", "HANDLERS"})


def declares_commands(source: str) -> bool:
    """Whether a module's source assigns ``VERBS`` or ``HANDLERS`` at its top level."""
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(target, ast.Name) and target.id in _DECLARATIONS for target in targets):
            return True
    return False


def command_module_names() -> tuple[str, ...]:
    """The command modules of judge/commands, by name."""
    here = Path(__file__).parent
    return tuple(f"judge.commands.{path.stem}" for path in sorted(here.glob("*.py"))
                 if declares_commands(path.read_text(encoding="utf-8")))


def command_modules() -> tuple[ModuleType, ...]:
    """The command modules in the order HELP shows their rows: by their ``HELP_ORDER``
    (50 when they declare none), then by name."""
    modules = [importlib.import_module(name) for name in command_module_names()]
    return tuple(sorted(modules, key=lambda module: (getattr(module, "HELP_ORDER", 50), module.__name__)))


def _family(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def _build(modules: Iterable[ModuleType]) -> tuple[VerbTable, Mapping[type[Command], Handler]]:
    verbs, handlers = [], {}
    for module in modules:
        verbs += [dataclasses.replace(verb, family=_family(module)) for verb in getattr(module, "VERBS", ())]
        for kind, handler in getattr(module, "HANDLERS", {}).items():
            if kind in handlers:
                raise RuntimeError(f"{kind.__name__} has two handlers ({module.__name__} and another)")
            handlers[kind] = handler
    return VerbTable(verbs), MappingProxyType(handlers)


MODULES = command_modules()
VERB_TABLE, HANDLERS = _build(MODULES)
#: The lines CREATE reads (MAP, RULE, ...): a command module's ``STATUS_VERBS``.
STATUS_VERBS: tuple[Verb, ...] = tuple(verb for module in MODULES for verb in getattr(module, "STATUS_VERBS", ()))


def handler_for(kind: type[Command]) -> Handler:
    """The handler of a command class; a class with no handler is a wiring mistake (KeyError)."""
    return HANDLERS[kind]


def parse_mail(message: Message) -> ParsedMail:
    return mailcmds.parse_mail(message, VERB_TABLE)


def parse_text(text: str, attachments: Iterable[Attachment] = ()) -> ParsedMail:
    return mailcmds.parse_text(text, VERB_TABLE, attachments)


def masked(text: str) -> str:
    return masking.masked(text, VERB_TABLE)


def redacted(text: str, source: str) -> str:
    return masking.redacted(text, source, VERB_TABLE)
