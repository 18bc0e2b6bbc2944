"""An address header's text parsed once per process: a mail's From is parsed three times
between reading it and replying (the loop guard, the sender's address), and a player's
From recurs from mail to mail.  ``email.utils.parseaddr`` costs about 40 microseconds a
call; its result for a given text never changes."""

from __future__ import annotations

from email.utils import parseaddr
from functools import lru_cache


@lru_cache(maxsize=1024)
def parsed_address(text: str) -> tuple[str, str]:
    """``email.utils.parseaddr(text)``: (display name, address), ("", "") when none."""
    return parseaddr(text)
