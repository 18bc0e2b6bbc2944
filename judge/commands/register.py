"""REGISTER name password (with profile lines), REGISTER CONFIRM token, REGISTER DELETE:
the registry of players by mail (judge/registry).

The password guards the registration as SIGNON's guards a seat (the same throttle against
guessing, judge/commands/signon_throttle.py); an address is linked only by the token
mailed to it coming back from it, so neither a forged From nor a password links an
address its owner did not answer from.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from judge.mailio.inbound import CommandRefused
from judge.mailio.outgoing import OutgoingMail
from judge.registry import book
from judge.store.models_registry import RegisteredPlayer
from judge.registry.profile import (BODY_ENDS, MOST_ADDRESSES_PER_MAIL, FieldChange, is_field_line, parse_field,
                                    parse_name)
from judge.mailio.render import render
from judge.store.passwords import verify_password
from mailcmds.model import Command, SourceLine
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count, strip_comment
from mailcmds.values import ValueSyntaxError

HELP_ORDER = 80  # after the game's own commands in GETTING STARTED
#: The space SIGNON's throttle counts registry passwords in (no game name has a '*').
THROTTLE_SPACE = "*registry"

# -- the command's words: values and parsing (pure) --------------------


@dataclass(frozen=True, slots=True)
class Register(Command):
    """``REGISTER name password`` and the profile lines after it (``FIELD_SYNTAX``, up to
    END or the first other line): a new registration, or changes to one's own."""

    name: str
    password: str
    changes: tuple[FieldChange, ...] = ()


@dataclass(frozen=True, slots=True)
class RegisterConfirm(Command):
    """``REGISTER CONFIRM token``: link the address this comes from (the token says which)."""

    token: str


@dataclass(frozen=True, slots=True)
class RegisterDelete(Command):
    """``REGISTER DELETE name password``: the registration's personal data gone."""

    name: str
    password: str


def _profile_lines(ctx: ParseContext) -> list[SourceLine]:
    """The profile lines after REGISTER: up to END, or left at the first line that is not one."""
    taken: list[SourceLine] = []
    while (line := ctx.peek()) is not None:
        text = strip_comment(line.text)
        if "".join(text.upper().split()) in BODY_ENDS:
            ctx.advance()
            break
        if text and not is_field_line(text):
            break
        ctx.advance()
        if text:
            taken.append(line)
    return taken


def _name(line: CommandLine, text: str) -> str:
    try:
        return parse_name(text)
    except ValueSyntaxError as error:
        raise line.fail(str(error)) from None


def _register(ctx: ParseContext, line: CommandLine) -> Register:
    lines = _profile_lines(ctx)  # read whole first: a bad one must not leave the rest to be taken as commands
    name, password = expect_count(line, 2, 2, "the player name you choose and a password")
    changes = []
    for field_line in lines:
        try:
            changes.append(parse_field(strip_comment(field_line.text)))
        except ValueSyntaxError as error:
            raise line.fail(f"line {field_line.number}: {error}") from None
    if sum(change.field == "address" for change in changes) > MOST_ADDRESSES_PER_MAIL:
        raise line.fail(f"at most {MOST_ADDRESSES_PER_MAIL} ADDRESS lines in one REGISTER (each mails a confirmation)")
    return Register(_name(line, name), password, tuple(changes), source=line.source)


def _confirm(ctx: ParseContext, line: CommandLine) -> RegisterConfirm:
    [token] = expect_count(line, 1, 1, "the token of the confirmation mail")
    return RegisterConfirm(token, source=line.source)


def _delete(ctx: ParseContext, line: CommandLine) -> RegisterDelete:
    name, password = expect_count(line, 2, 2, "your player name and password")
    return RegisterDelete(_name(line, name), password, source=line.source)


_FIELD_ROWS = tuple(("registry", "", f"  {text}") for text in (
    "REALNAME text, COUNTRY text, ZONE Europe/Paris,", "LEVEL novice|intermediate|advanced|expert,",
    "PUBLIC realname country zone level addresses", "  record (any of them) or PUBLIC NONE,",
    "ADDRESS address (linked once confirmed there),", "UNLINK address"))

VERBS = (
    Verb(("REGISTER",), "REGISTER name password, then profile lines (REALNAME, COUNTRY, ZONE, LEVEL, PUBLIC, "
                        "ADDRESS, UNLINK) and END",
         "register a player name (or change your registration): your address is linked once you confirm it",
         _register, secret_args=(1,), body=True,
         help=(("registry", "REGISTER name password", "register a player name for your address, or change"),
               ("registry", "", "your registration; profile lines may follow, then END:"),
               *_FIELD_ROWS)),
    Verb(("REGISTER", "CONFIRM"), "REGISTER CONFIRM token",
         "link the address this mail comes from, with the token the judge mailed there",
         _confirm, secret_args=(0,), in_subject=True,
         help=(("registry", "REGISTER CONFIRM token", "link this address (the token mailed to it)"),)),
    Verb(("REGISTER", "DELETE"), "REGISTER DELETE name password",
         "delete your registration: personal data and links gone, your games keep the name",
         _delete, secret_args=(1,),
         help=(("registry", "REGISTER DELETE name password", "delete your registration and its data"),)),
)

# -- the handlers ------------------------------------------------------------------------


def _sender(ctx: MailContext) -> str:
    address = ctx.sender.lower()
    if not address:
        raise CommandRefused("this mail gives no address to answer or link (its From is not a usable address)")
    return address


def _own(ctx: MailContext, name: str, password: str) -> RegisteredPlayer | None:
    """The registration ``name`` when ``password`` is its own; None when nobody holds the
    name (a lapsed pending one is forgotten); CommandRefused when someone else does."""
    player = book.find(ctx.session, name)
    if player is not None and player.deleted_at is not None:
        raise CommandRefused(f"the player name {player.name} belonged to a player who deleted the registration; "
                             "it stays with the games played under it: choose another name")
    if player is not None and book.lapsed(ctx.session, player, ctx.now):
        book.forget(ctx.session, player)
        return None
    if player is not None and not verify_password(password, player.password_hash):
        raise CommandRefused(f"the player name {player.name} is registered to someone else (or the password is "
                             "wrong): if it is yours, check your password; if not, choose another name")
    return player


def _confirmation(ctx: MailContext, player: RegisteredPlayer, request: book.LinkRequest) -> OutgoingMail:
    assert request.token is not None
    body = render("registry_confirm.j2", judge=ctx.judge.address, player=player.name, address=request.address,
                  token=request.token, days=book.REQUEST_LIFETIME.days)
    return OutgoingMail(recipients=(request.address,), subject=f"REGISTER CONFIRM {request.token}", body=body,
                        kind="registry_confirm", auto_submitted="auto-generated")


def register(ctx: MailContext, command: Register) -> None:
    sender = _sender(ctx)
    book.purge_lapsed_requests(ctx.session, ctx.now)
    player = _own(ctx, command.name, command.password)
    said: list[str] = []
    to_link = [change.value for change in command.changes if change.field == "address"]
    if player is None:
        owner = book.player_at(ctx.session, sender)
        if owner is not None:
            raise CommandRefused(f"your address {sender} is linked to player {owner.name} already, and an address "
                                 f"belongs to one player: REGISTER {owner.name} yourpassword changes that registration")
        player = book.new_player(ctx.session, command.name, command.password, ctx.now)
        said.append(f"player name {player.name} registered, held for you {book.REQUEST_LIFETIME.days} days until "
                    "an address is confirmed")
        to_link.insert(0, sender)
    else:
        owner = book.player_at(ctx.session, sender)
        if owner is None:
            to_link.insert(0, sender)
        elif owner.id != player.id:
            said.append(f"your address {sender} stays linked to player {owner.name}")
    for change in command.changes:
        if change.field == "unlink":
            book.unlink(ctx.session, player, change.value)
            said.append(f"{change.value} unlinked")
        elif change.field != "address":
            book.apply(player, change)
            said.append(f"{change.field} {'set' if change.value else 'erased'}")
    for address in dict.fromkeys(to_link):
        request = book.request_link(ctx.session, player, address, ctx.now, sender)
        said.append(request.said)
        if request.token is not None:
            ctx.send([_confirmation(ctx, player, request)])
    ctx.done(command, f"{player.name}: " + "; ".join(said or ["nothing to change"]))


def register_confirm(ctx: MailContext, command: RegisterConfirm) -> None:
    sender = _sender(ctx)
    player, new = book.confirm(ctx.session, command.token, sender, ctx.now)
    ctx.done(command, f"{sender} is {'now' if new else 'already'} linked to player {player.name}")


def register_delete(ctx: MailContext, command: RegisterDelete) -> None:
    player = _own(ctx, command.name, command.password)
    if player is None:
        raise CommandRefused(f"no player is registered as {command.name}")
    count = book.erase(ctx.session, player, ctx.now)
    ctx.done(command, f"registration of {player.name} deleted: real name, country, time zone, level, password "
                      f"and {count} linked address{'' if count == 1 else 'es'} erased; the games you played keep "
                      f"the name {player.name}")


HANDLERS = {
    Register: Handler(register),
    RegisterConfirm: Handler(register_confirm),
    RegisterDelete: Handler(register_delete),
}
