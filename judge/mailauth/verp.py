"""VERP return paths (one envelope sender per recipient): ``judge+<token>@domain``, the
token a keyed hash of the outgoing mail and its recipient (judge.mailauth.tokens), so a
bounce names the address it is about and nobody can forge one about another address."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from judge.mailauth.tokens import Token, bounce_token, read_token


@dataclass(frozen=True)
class ReturnPaths:
    key: bytes
    judge_address: str

    def for_recipient(self, outbox_id: int, recipient: str) -> str:
        local, _, domain = self.judge_address.partition("@")
        return f"{local}+{bounce_token(self.key, outbox_id, recipient)}@{domain}"

    def token_in(self, addresses: Iterable[str]) -> Token | None:
        """The bounce token of the first of ``addresses`` that is one of our return paths."""
        local, _, domain = self.judge_address.lower().partition("@")
        for address in addresses:
            user, _, host = address.strip().strip("<>").lower().rpartition("@")
            if host == domain and user.startswith(local + "+"):
                token = read_token(user[len(local) + 1:], "b")
                if token is not None:
                    return token
        return None
