"""The one-click unsubscribe link of each recipient (RFC 8058, RFC 2369).

A game's mail carries ``List-Id``; as it leaves, each copy's ``List-Unsubscribe`` is
made personal: an https link ``<base_url>/<token>`` when ``[unsubscribe] base_url`` is
set, with ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, and always a mailto link
to the judge whose Subject is ``UNSUBSCRIBE <token>``.  The token names the game and, by
a keyed hash, the recipient's address (judge.mailauth.tokens): nobody can make the link
of another member.  What a click does is the UNSUBSCRIBE command's business
(judge/commands/unsubscribe.py): an observer leaves; a player or the master is only
told, by mail, how to resign, never resigned by one click.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import quote

from judge.mailauth.tokens import unsubscribe_token

ONE_CLICK = "List-Unsubscribe=One-Click"
_LIST_ID = re.compile(rb"(?im)^list-id:")
_OURS = re.compile(rb"(?im)^list-unsubscribe(?:-post)?:[^\n]*\n(?:[ \t][^\n]*\n)*")


@dataclass(frozen=True)
class UnsubscribeLinks:
    key: bytes
    judge_address: str
    base_url: str = ""

    def headers(self, game_id: int, address: str) -> list[tuple[str, str]]:
        token = unsubscribe_token(self.key, game_id, address)
        mailto = f"<mailto:{self.judge_address}?subject={quote(f'UNSUBSCRIBE {token}', safe='')}>"
        if not self.base_url:
            return [("List-Unsubscribe", mailto)]
        return [("List-Unsubscribe", f"<{self.base_url}/{token}>,\n {mailto}"),
                ("List-Unsubscribe-Post", ONE_CLICK)]

    def apply(self, raw: bytes, game_id: int | None, recipients: Sequence[str]) -> bytes:
        """``raw`` with the recipient's own links, when it is one game member's copy of a
        game's mail (it has List-Id); else ``raw`` unchanged (an external list adds its own)."""
        if game_id is None or len(recipients) != 1:
            return raw
        crlf = b"\r\n" in raw[:2000]
        text = raw.replace(b"\r\n", b"\n") if crlf else raw
        head, sep, body = text.partition(b"\n\n")
        if not sep or not _LIST_ID.search(head):
            return raw
        head = _OURS.sub(b"", head + b"\n")[:-1]
        added = "".join(f"\n{name}: {value}" for name, value in self.headers(game_id, recipients[0]))
        result = head + added.encode("ascii") + sep + body
        return result.replace(b"\n", b"\r\n") if crlf else result
