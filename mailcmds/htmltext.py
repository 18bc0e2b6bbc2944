"""HTML -> plain text with the standard library, for mails that have no text/plain part.

Block elements become line breaks, ``<blockquote>`` content becomes ``>``-quoted lines
(so quoted replies are ignored like plain-text quotes), scripts, styles and the head
are dropped, ``<pre>`` keeps its spacing.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK_TAGS = frozenset(
    "address article aside blockquote center dd div dl dt fieldset figcaption figure footer "
    "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot th "
    "thead tr ul".split()
)
_SKIP_TAGS = frozenset({"head", "script", "style", "title", "template"})
_SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._current: list[str] = []
        self._skip_depth = 0
        self._quote_depth = 0
        self._pre_depth = 0

    # -- line handling ---------------------------------------------------------------
    def _joined(self) -> str:
        text = "".join(self._current)
        return text.rstrip(" ") if self._pre_depth else text.strip(" ")

    def _break(self) -> None:
        text = self._joined()
        self._current = []
        if text:  # block edges end a line but add no blank one (Gmail writes a <div> per line)
            self.lines.append("> " * self._quote_depth + text)

    def _hard_break(self) -> None:
        """A <br>: ends the line even when it is empty (players use blank lines)."""
        text = self._joined()
        self._current = []
        self.lines.append(("> " * self._quote_depth + text) if text else "")

    # -- parser callbacks --------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth += 1
        elif tag == "br":
            self._hard_break()
        elif tag in _BLOCK_TAGS:
            self._break()
            if tag == "blockquote":
                self._quote_depth += 1
            elif tag == "pre":
                self._pre_depth += 1
            elif tag == "hr":
                self.lines.append("_" * 32)  # Outlook's reply separator looks like this too

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "hr"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCK_TAGS:
            self._break()
            if tag == "blockquote":
                self._quote_depth = max(0, self._quote_depth - 1)
            elif tag == "pre":
                self._pre_depth = max(0, self._pre_depth - 1)

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._pre_depth:
            parts = data.replace("\r\n", "\n").split("\n")
            for index, part in enumerate(parts):
                if index:
                    self._hard_break()
                self._current.append(part.replace("\u00a0", " "))
        else:
            self._current.append(_SPACES.sub(" ", data))

    def close(self) -> None:
        super().close()
        self._break()


def html_to_text(html: str) -> str:
    """The readable text of an HTML document, one block per line."""
    collector = _TextCollector()
    try:
        collector.feed(html)
        collector.close()
    except Exception:  # html.parser is lenient; this is a last guard against odd input
        collector._break()
    lines = collector.lines
    while lines and lines[-1] == "":
        lines.pop()
    while lines and lines[0] == "":
        lines.pop(0)
    return "\n".join(lines)
