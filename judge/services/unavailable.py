"""The line a player gets for a command this judge reads but has no handler for yet.

Features arrive as handler modules (sealed orders, fair assignment, turn commands); until
one is listed in judge.services.HANDLER_MODULES its commands are answered with a clear
line instead of being lost or crashing the mail.
"""

from __future__ import annotations

from mailcmds import Command
from mailcmds import registry as verbs

# By the command's family module (mailcmds.<family>), or by class name for single commands.
_FEATURES_BY_MODULE = {
    "mailcmds.sealed": "sealed orders are",
    "mailcmds.draw": "draw and concession votes are",
    "mailcmds.fair": "fair power assignment is",
}
_FEATURES_BY_CLASS = {
    "Process": "processing by the master is",
    "Preview": "previews are",
    "Rollback": "rollbacks are",
    "GetKey": "the judge's OpenPGP key is",
    "WitnessStatus": "blinded power assignment (WITNESS) is",
}


def verb_of(command: Command) -> str:
    """The command word(s) as the verb table names them (``SET DRAW``, ``COMMIT``)."""
    words = command.source.text.split()
    found = verbs.lookup(words) if words else None
    if found is None:
        return type(command).__name__.upper()
    return " ".join(found[0].words)


#: Blinded-assignment mail that players and the game master address to the witness.
_FOR_THE_WITNESS = frozenset({"BlindedMessage", "BlindFactor", "BlindConfirm", "BlindReceipt", "BlindShuffle",
                              "BlindFormat"})


def not_enabled(command: Command) -> str:
    kind = type(command)
    if kind.__name__ in _FOR_THE_WITNESS:
        return (f"{verb_of(command)}: this mail belongs to the witness of a blinded assignment, "
                f"not to the judge; send it to the witness's address; nothing was done")
    feature = _FEATURES_BY_CLASS.get(kind.__name__) or _FEATURES_BY_MODULE.get(kind.__module__) \
        or f"the {verb_of(command)} command is"
    return f"{verb_of(command)}: {feature} not enabled on this judge yet; nothing was done"
