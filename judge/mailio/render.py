"""Jinja templates for every outgoing mail kind (templates/*.j2, shipped in the package).

Text mail, so no autoescaping; StrictUndefined so a template naming a value the caller
did not pass fails loudly in the tests instead of mailing a blank.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("templates", "."),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["indent_lines"] = _indent_lines
    return env


def _indent_lines(text: str, prefix: str = "  ") -> str:
    """Every line of ``text`` with ``prefix`` (blank lines stay blank)."""
    return "\n".join(prefix + line if line.strip() else "" for line in str(text).rstrip("\n").split("\n"))


def render(template: str, **values: Any) -> str:
    """The text of ``templates/<template>`` with ``values``; ends with one newline."""
    text = environment().get_template(template).render(**values)
    return text.rstrip("\n") + "\n"
