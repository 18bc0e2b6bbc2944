"""The line loop: extracted mail -> ParsedMail.

Lines are read in order.  A line whose first word(s) name a verb is handed to that
verb's parser (which may read the lines of its body).  Other lines are order lines once
a SIGNON (or JOIN, TAKEOVER, OBSERVE, CREATE) has opened a session, and errors before.
A session that failed to open sets its order lines aside as unprocessed.  SIGNOFF ends
the reading; what follows is unprocessed.
"""

from __future__ import annotations

import difflib
import enum

from .extract import ExtractedMail
from .masking import masked, normalized
from .model import Command, ParsedMail, SourceLine, quote
from .orders import OrderLines, looks_like_order, looks_like_prose
from .registry import VerbTable
from .syntax import (
    MAX_COMMAND_LINE,
    MAX_COMMANDS_PER_MAIL,
    MAX_LINES_PER_MAIL,
    CommandLine,
    CommandSyntaxError,
    ParseContext,
    Verb,
    mask_words,
    strip_comment,
)
from .values import ValueSyntaxError


class _Session(enum.Enum):
    NONE = "none"  # no SIGNON yet: unknown lines are errors
    OPEN = "open"  # unknown lines are orders
    FAILED = "failed"  # the SIGNON was wrong: unknown lines are set aside


_START_HINT = "start with SIGNON power@game password, JOIN game password or CREATE game password (HELP lists every command)"


def _quoted_for(words: tuple[str, ...], text: str, verbs: VerbTable) -> str:
    """A line quoted in an error about an unknown word; if it may be a misspelt
    password-bearing command, every word after the first is masked."""
    guess = verbs.near_miss(words[0])
    if guess is not None and guess.secret_args:
        return mask_words(text, words, 1, range(len(words)))
    return text


class _MailParser:
    def __init__(self, mail: ExtractedMail, verbs: VerbTable) -> None:
        self.mail = mail
        self.verbs = verbs
        self.ctx = ParseContext(lines=mail.lines, armored=mail.armored, attachments=mail.attachments)
        self.commands: list[Command] = []
        self.orders: list[SourceLine] = []
        self.session = _Session.NONE
        self.notices: list[str] = []
        self.lines_read = 0
        self.sessions_opened = 0  # repeated information requests count per signed-on game
        self.answered: dict[tuple[object, ...], int] = {}  # information request -> its first line
        self.repeated: list[int] = []
        # Lines that read as a person's words (looks_like_prose), held back: followed by a
        # command or an order they are read as usual; at the end of the mail they are a
        # reply's greeting and signature, and are set aside once, with one notice.
        self.prose: list[SourceLine] = []

    # -- helpers ---------------------------------------------------------------------
    def flush_orders(self) -> None:
        if self.orders:
            self.commands.append(OrderLines(tuple(self.orders), source=self.orders[0]))
            self.orders = []

    def run_verb(self, number: int, text: str, words: tuple[str, ...], found: tuple[Verb, int]) -> Command | None:
        verb, length = found
        line = CommandLine(number, text, words, verb, length)
        try:
            command = verb.parse(self.ctx, line)
        except CommandSyntaxError as problem:
            self.ctx.error(number, line.masked_text, str(problem))
            return None
        except ValueSyntaxError as problem:
            self.ctx.error(number, line.masked_text, f"{problem}; write {verb.syntax}")
            return None
        except Exception as problem:  # a parser bug must cost one line, never the mail
            self.ctx.error(number, line.masked_text,
                           f"the judge could not read this line ({type(problem).__name__}); write {verb.syntax}")
            return None
        return command

    def unknown(self, number: int, text: str, words: tuple[str, ...]) -> None:
        first = words[0].upper()
        if len(words) <= 2 and "".join(words).upper() in ("ENDPRESS", "ENDBROADCAST", "ENDREVEAL"):
            return  # a stray terminator changes nothing
        prefixed = self.verbs.verbs_starting(first)
        if prefixed:
            self.release_prose()
            # Mask what follows the second word: "SET PASWORD x" must not echo x.
            quoted = mask_words(text, words, 2, range(len(words)))
            seconds = [v.words[1] for v in prefixed]
            close = difflib.get_close_matches(words[1].upper(), seconds, n=1, cutoff=0.6) if len(words) > 1 else []
            if close:
                meant = next(v for v in prefixed if v.words[1] == close[0])
                message = f"unknown command '{' '.join(words[:2])}': did you mean {' '.join(meant.words)}? write {meant.syntax}"
            else:
                message = f"{first} is followed by one of: {', '.join(seconds)}"
            self.ctx.error(number, quoted, message)
            return
        guess = self.verbs.near_miss(first)
        if guess is not None and not looks_like_order(text):
            self.release_prose()
            self.ctx.error(
                number, _quoted_for(words, text, self.verbs),
                f"unknown command '{words[0]}': did you mean {' '.join(guess.words)}? write {guess.syntax}",
            )
            return
        after_a_command = bool(self.commands or self.orders)
        if after_a_command and self.session is not _Session.FAILED and looks_like_prose(text):
            self.prose.append(SourceLine(number, text))
            return
        self.release_prose()
        self.read_unknown(number, text)

    def release_prose(self) -> None:
        """Held-back lines with more of the mail after them: read as any other line."""
        held, self.prose = self.prose, []
        for line in held:
            self.read_unknown(line.number, line.text)

    def read_unknown(self, number: int, text: str) -> None:
        words = text.split()
        if self.session is _Session.OPEN:
            self.orders.append(SourceLine(number, text))
        elif self.session is _Session.FAILED:
            self.ctx.set_aside([SourceLine(number, text)])
        elif looks_like_order(text):
            self.ctx.error(number, masked(text, self.verbs), f"orders must follow a SIGNON: {_START_HINT}")
        else:
            self.ctx.error(number, masked(text, self.verbs), f"unknown command '{quote(words[0], 40)}': {_START_HINT}")

    # -- the loop ----------------------------------------------------------------------
    def subject(self) -> None:
        """A Subject that is itself a good one-line SIGNON, JOIN, OBSERVE, TAKEOVER or
        information request (``SIGNON Fgame pw``) is read as line 0.  Anything else in
        the Subject ("Re: ...", "Help with my orders", "Resign") is ignored silently."""
        text = normalized(strip_comment(self.mail.subject))
        words = tuple(text.split())
        if not words or len(text) > MAX_COMMAND_LINE:
            return
        found = self.verbs.lookup(words)
        if found is None or not found[0].in_subject:
            return
        probe = ParseContext(lines=())
        try:
            command = found[0].parse(probe, CommandLine(0, text, words, found[0], found[1]))
        except Exception:  # a Subject that is not a good command is simply not one
            return
        if probe.errors or command.names_signed_on_game():
            return
        self.after(found[0], command)

    def after(self, verb: Verb, command: Command | None) -> None:
        if command is not None and not self._repeated(command):
            self.commands.append(command)
        if verb.opens_session:
            self.session = _Session.OPEN if command is not None else _Session.FAILED
            self.sessions_opened += 1

    def _repeated(self, command: Command) -> bool:
        """An information request already in this mail (for the same sign-on) is answered
        once: the repeat is set aside, and the reply says so."""
        if not command.answered_once:
            return False
        key = (self.sessions_opened, type(command).__name__,
               tuple(word.upper() for word in strip_comment(command.source.text).split()[1:]))
        if key not in self.answered:
            self.answered[key] = command.source.number
            return False
        if self.answered[key] == 0:  # the Subject asked the same: the body's line answers it
            self.commands = [command if c.source.number == 0 else c for c in self.commands]
            self.answered[key] = command.source.number
            return True
        self.ctx.set_aside([command.source])
        self.repeated.append(command.source.number)
        return True

    def trailing_prose(self) -> None:
        """The held-back lines at the end of the mail: ignored, listed once, not errors."""
        if not self.prose:
            return
        lines, self.prose = self.prose, []
        self.ctx.set_aside(lines)
        count = len(lines)
        where = f"line {lines[0].number}" if count == 1 else f"lines {lines[0].number}-{lines[-1].number}"
        self.notices.append(
            f"{where} after your last command or order read{'s' if count == 1 else ''} as words, not as orders or commands (a greeting or a "
            f"signature?), and {'was' if count == 1 else 'were'} ignored; to send words to other players write "
            "PRESS TO power, the message, then ENDPRESS.")

    def over_limits(self) -> bool:
        """Whether this mail has asked for all the work one mail may; if so, the rest of
        it is set aside with a notice."""
        commands = len(self.commands) + (1 if self.orders else 0)
        if commands < MAX_COMMANDS_PER_MAIL and self.lines_read < MAX_LINES_PER_MAIL:
            return False
        rest = self.ctx.lines[self.ctx.position:]
        self.ctx.set_aside(rest)
        self.ctx.position = len(self.ctx.lines)
        self.notices.append(
            f"a mail is read up to {MAX_COMMANDS_PER_MAIL} commands and {MAX_LINES_PER_MAIL} command or order "
            f"lines; the {sum(1 for line in rest if line.text.strip())} lines after line {rest[0].number - 1 if rest else 0} "
            "were not read: send them in another mail")
        return True

    def run(self) -> ParsedMail:
        self.subject()
        ctx = self.ctx
        while (raw := ctx.peek()) is not None:
            if raw.text.strip() and self.over_limits():
                break
            block = ctx.block_at(raw.number)
            if block is not None and block.first_line not in ctx.used_blocks:
                self.release_prose()
                self.flush_orders()
                skipped = ctx.skip_block(block)
                if block.kind != "PGP SIGNED MESSAGE":
                    ctx.error(raw.number, raw.text, f"a {block.kind} block is read only below SET KEY, COMMIT, ESCROW or PEEL")
                    ctx.set_aside(skipped)
                continue
            ctx.advance()
            text = normalized(strip_comment(raw.text))
            if not text:
                continue
            self.lines_read += 1
            words = tuple(text.split())
            if len(text) > MAX_COMMAND_LINE:
                self.release_prose()
                ctx.error(raw.number, masked(text, self.verbs), f"the line is {len(text)} characters long; commands and orders are at most {MAX_COMMAND_LINE}")
                continue
            found = self.verbs.lookup(words)
            if found is None:
                self.unknown(raw.number, text, words)
                continue
            self.release_prose()
            self.flush_orders()
            command = self.run_verb(raw.number, text, words, found)
            self.after(found[0], command)
            if command is not None and command.ends_reading:
                ctx.set_aside(ctx.lines[ctx.position :])
                ctx.position = len(ctx.lines)
        self.flush_orders()
        self.trailing_prose()
        if self.repeated:
            self.notices.append(f"the same information was asked for more than once; it is answered once "
                                f"(line{'s' if len(self.repeated) > 1 else ''} "
                                f"{_numbers(self.repeated)} not processed)")
        mail = self.mail
        return ParsedMail(
            sender=mail.sender,
            sender_name=mail.sender_name,
            reply_to=mail.reply_to,
            subject=mail.subject,
            commands=tuple(self.commands),
            errors=tuple(ctx.errors),
            unprocessed=tuple(ctx.unprocessed),
            attachments=mail.attachments,
            armored=mail.armored,
            body_charset=mail.charset,
            notices=(*mail.notices, *self.notices),
        )


def _numbers(numbers: list[int], shown: int = 10) -> str:
    listed = ", ".join(map(str, numbers[:shown]))
    return listed + (f" and {len(numbers) - shown} more" if len(numbers) > shown else "")


def parse_extracted(mail: ExtractedMail, verbs: VerbTable) -> ParsedMail:
    return _MailParser(mail, verbs).run()
