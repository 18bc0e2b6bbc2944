"""The email policy of the mail the judge reads and writes: ``email.policy.default`` with
its header classes made once.

The standard library's ``HeaderRegistry`` builds a new class with ``type()`` every time a
header is read or set (about 70 microseconds each), and a mail is read and written some
thirty times between intake and reply.  This registry keeps each class it has built; the
classes, and so the parsed and serialised headers, are exactly those of the default.
"""

from __future__ import annotations

from email.headerregistry import BaseHeader, HeaderRegistry
from email.policy import EmailPolicy, default


class CachingHeaderRegistry(HeaderRegistry):
    """A ``HeaderRegistry`` whose ``registry[name]`` builds the class for a name once."""

    def __init__(self) -> None:
        super().__init__()
        self._built: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        built = self._built.get(key)
        if built is None:
            built = self._built[key] = super().__getitem__(key)
        return built


#: ``email.policy.default`` with the caching header registry.
POLICY: EmailPolicy = default.clone(header_factory=CachingHeaderRegistry())
