"""What a shunt says: the reason the operator reads and the notice the sender gets.

A mail is shunted when its processing raised, or when processing it was started
``[worker] max_attempts`` times and never finished (the worker died with it in hand:
killed, out of memory, the interpreter crashed).  The shunt row keeps the reason for
``judge shunt list`` (whose listing shows the last line, so the last line says it all);
the sender, when the mail may be answered, is told that nothing in it was done.
"""

from __future__ import annotations

from judge.store.conflicts import is_conflict

UNFINISHED = "UnfinishedProcessing"


def without_secrets(text: str, raw: bytes) -> str:
    """A shunt's reason (an error line, a traceback) as shown to an operator (the log, the
    shunt listing): the passwords of the mail's own command lines, body or Subject,
    masked, since an exception message may quote the line it failed on."""
    from judge.commands.registry import redacted

    source = raw[:1_000_000].decode("utf-8", errors="replace")
    subjects = [line.split(":", 1)[1] for line in source.splitlines() if line.lower().startswith("subject:")]
    return redacted(text, "\n".join([source, *subjects]))


def unfinished_reason(attempts: int) -> str:
    """The shunt text of a mail whose processing started ``attempts`` times, never finishing."""
    return (f"The worker began processing this mail {attempts} times and never finished: each time it stopped "
            "with the mail in hand (killed, out of memory, or crashed).  It is not started again by itself; "
            "`judge shunt retry` starts it once more.\n"
            f"{UNFINISHED}: started {attempts} times, never finished (the worker died each time: "
            "killed, out of memory, or crashed)\n")


def cause_for_sender(error: BaseException | None, attempts: int) -> str:
    """Why the mail was not processed, in the sender's words (``error`` None: unfinished)."""
    if error is None:
        return f"the judge stopped each of the {attempts} times it began to process it"
    if isinstance(error, MemoryError):
        return "it needed more memory than the judge has for one mail"
    if isinstance(error, RecursionError):
        return "it is built too deeply for the judge to read"
    if is_conflict(error):
        return "what it is about kept being changed by others while the judge processed it"
    return "the judge met an error while processing it"


def sender_notice(cause: str) -> str:
    """The body of the notice to the sender of a shunted mail."""
    return (f"Your mail could not be processed: {cause}.\n"
            "Nothing in it was done.\n\n"
            "The judge's operator has been told and may process it again later.  Or send it again\n"
            "yourself (in smaller parts, if it was long).\n")
