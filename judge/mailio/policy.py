"""The email policy of the mail the judge reads and writes: ``email.policy.default`` with
its header classes made once and its parsed headers remembered.

The standard library's ``HeaderRegistry`` builds a new class with ``type()`` every time a
header is read or set (about 70 microseconds each), and a mail is read and written some
thirty times between intake and reply.  This registry keeps each class it has built; the
classes, and so the parsed and serialised headers, are exactly those of the default.

It also keeps the header objects it has made from plain strings: ``EmailMessage`` parses
a header again on every read (``get_content_type`` alone reads Content-Type each time,
ten times per mail between parsing a command mail and writing its reply), and the same
values recur from mail to mail (Content-Type, MIME-Version, a player's From).  Header
objects are immutable values (a ``str`` with read-only parsed attributes), so one object
can serve every message that holds the same name and value.
"""

from __future__ import annotations

from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.policy import EmailPolicy, default

#: Parsed headers kept; the whole memo is dropped when it grows past this.
MEMO_LIMIT = 512


class CachingHeaderRegistry(HeaderRegistry):
    """A ``HeaderRegistry`` whose ``registry[name]`` builds the class for a name once and
    whose ``registry(name, value)`` parses a given plain-string value once."""

    def __init__(self) -> None:
        super().__init__()
        self._built: dict[str, type[BaseHeader]] = {}
        self._parsed: dict[tuple[str, str], BaseHeader] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        built = self._built.get(key)
        if built is None:
            built = self._built[key] = super().__getitem__(key)
        return built

    def __call__(self, name: str, value: object) -> BaseHeader:
        if type(value) is not str:  # an Address, a header object: made anew as before
            return self[name](name, value)
        key = (name, value)
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = self[name](name, value)
            if len(self._parsed) >= MEMO_LIMIT:
                self._parsed.clear()  # simple bound; threads may race here harmlessly
            self._parsed[key] = parsed
        return parsed


#: The policy's header registry (its ``registry`` maps the names of the headers that the
#: email package parses to their classes).
HEADER_REGISTRY = CachingHeaderRegistry()
#: ``email.policy.default`` with the caching header registry.
POLICY: EmailPolicy[EmailMessage] = default.clone(header_factory=HEADER_REGISTRY)
