"""Who may send press after a deadline, with the DPjudge's rule names.

After the deadline a *late* power (active, orders missing) may send only broadcast press or
press to the master.  Two DPjudge RULEs change that:

* ``LATE_SEND``: late powers may send private press too.
* ``NO_LATE_RECEIVE``: nobody may send private press *to* a late power after the deadline.

(The DPjudge has no LATE_PRESS / NO_LATE_PRESS; these two are its names and we keep them.)
Before the deadline nobody is late and these limits do not apply.  ``rules_refusal`` holds
the game's other press rules (NO_PRESS, PUBLIC_PRESS, GUNBOAT, GREY_PRESS), one check for
press by mail and press between machine players (DAIDE).
"""

from __future__ import annotations

from datetime import datetime

__all__ = ["LATE_SEND", "MASTER", "NO_LATE_RECEIVE", "late_press_refusal", "rules_refusal"]

LATE_SEND = "LATE_SEND"
NO_LATE_RECEIVE = "NO_LATE_RECEIVE"
MASTER = "MASTER"  # the recipient name the PRESS command uses for the game's master


def late_press_refusal(
    sender: str,
    recipients: frozenset[str],
    *,
    broadcast: bool,
    late: frozenset[str],
    now: datetime,
    deadline: datetime,
    rules: frozenset[str] = frozenset(),
) -> str | None:
    """Why this press may not be sent because of lateness, or None when it may.

    ``recipients``: the powers addressed (``MASTER`` for the master); ignored for a broadcast.
    ``late``: the powers whose orders are missing in the current phase.
    """
    if now < deadline or broadcast:
        return None
    private_to = recipients - {MASTER}
    if not private_to:
        return None
    if sender in late and LATE_SEND not in rules:
        return (
            f"{sender} is late: after the deadline a late power may send only broadcast press "
            "or press to the master (orders first, then press)"
        )
    late_recipients = private_to & late
    if late_recipients and NO_LATE_RECEIVE in rules:
        names = ", ".join(sorted(late_recipients))
        return f"RULE NO_LATE_RECEIVE: no private press to late powers after the deadline ({names})"
    return None


def rules_refusal(rules: frozenset[str], *, to_master_only: bool, broadcast: bool, grey: bool, ended: bool) -> str | None:
    """Why the game's press RULEs (``rules``: names) forbid a player's press, or None.

    ``to_master_only``: the press goes to the master alone (always allowed); ``broadcast``:
    to everyone; ``ended``: the game is over (gunboat and no-press games talk then)."""
    if grey and "GREY_PRESS" not in rules:
        return "grey press is not allowed in this game (no RULE GREY_PRESS): send it without GREY"
    if to_master_only:
        return None
    if not ended and "GUNBOAT" in rules:
        return "this is a gunboat game (RULE GUNBOAT): no press until the game ends, except to the master"
    if not ended and "NO_PRESS" in rules:
        return "this game has RULE NO_PRESS: press may go only to the master (PRESS TO M)"
    if "PUBLIC_PRESS" in rules and not broadcast:
        return "this game has RULE PUBLIC_PRESS: only broadcasts (BROADCAST or PRESS without TO) and press to the master"
    return None
