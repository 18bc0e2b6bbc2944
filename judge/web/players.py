"""The archive's pages of registered players and ratings: ``players/index.html`` and
``players/pages/<n>.html`` (the names, in pages of judge/web/paging.py's size),
``players/<name>.html`` (what WHOIS shows a stranger: the card of
judge/registry/cards.py with the record when its player made it public) and
``ratings.html`` (the top of each pool, as RATINGS by mail lists it).

Privacy is the registry's: a page shows ``card_of(..., own=False)`` and nothing else, and
``record_of`` leaves a running gunboat game's power uncounted.  A deleted registration or
one never confirmed has no page; its file is removed at the next build.  The pages are
looked at again whenever their signature changes: a registration or link, a game's end, a
new seat, a rating (not each phase: the turns of running games show at the next of
those that concerns the player, or at ``judge web build``).  Then a player's page is
read from the store again only when what it is made of changed (``inputs``: the
registration, its addresses, the seats held at them and their games' statuses, the
ratings under its keys), and any page (a player's, the index's, the ratings) is written
only when its content changed (each page's key is kept in ``.players.json``).  The games
of a player who came to or left the list are named, so that their pages link him, or
stop linking him.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.lifecycle import ENDED
from judge.registry.cards import Card, card_lines, card_of
from judge.standing.facts import Pool
from judge.standing.reading import Standing, address_key, member_rows, shown_name, top
from judge.standing.records import record_of
from judge.store.models_game import DUMMY, PLAYER, Game, Membership
from judge.store.models_registry import RegisteredAddress, RegisteredPlayer
from judge.store.models_standing import RatingEntry
from judge.web import pages
from judge.web.files import ArchiveFiles
from judge.web.paging import page_count, page_key, page_rows, remove_others, write_changed

FOLDER = "players"
#: The players' index after its first page (a player's name cannot be a folder's path).
PAGES_FOLDER = f"{FOLDER}/pages"
RATINGS_PAGE = "ratings.html"
STATE_NAME = ".players.json"
#: Players listed per pool on the ratings page (RATINGS by mail lists up to 100).
TOP_COUNT = 100


@dataclass(frozen=True)
class PlayerPage:
    """One player's page: the WHOIS text of a stranger's view, line by line."""

    name: str
    lines: tuple[str, ...]


def listed(session: Session) -> list[RegisteredPlayer]:
    """The registrations WHOIS answers by name: not deleted, with a confirmed address."""
    linked = select(RegisteredAddress.player_id)
    return list(session.scalars(select(RegisteredPlayer).where(RegisteredPlayer.deleted_at.is_(None),
                                                               RegisteredPlayer.id.in_(linked))
                                .order_by(RegisteredPlayer.name_key)))


def player_page(session: Session, player: RegisteredPlayer) -> PlayerPage:
    card: Card = card_of(session, player, own=False)
    record = record_of(session, card.record_addresses).lines() if card.record_addresses else ()
    return PlayerPage(player.name, tuple(card_lines(card, record)))


def signature(session: Session) -> str:
    """What the player and ratings pages are built from, as one digest."""
    connection = session.connection()
    parts: list[object] = list(connection.execute(
        select(RegisteredPlayer.id, RegisteredPlayer.name, RegisteredPlayer.real_name, RegisteredPlayer.country,
               RegisteredPlayer.zone, RegisteredPlayer.level, RegisteredPlayer.public, RegisteredPlayer.deleted_at)
        .order_by(RegisteredPlayer.id)).all())
    parts += connection.execute(select(RegisteredAddress.id, RegisteredAddress.player_id)
                                .order_by(RegisteredAddress.id)).all()
    # Not every phase (turns, games' versions): a page follows a game's end, a new seat, a rating.
    parts += connection.execute(select(func.count(Game.id), func.sum(Game.id)).where(Game.status == ENDED)).all()
    for table_id in (Membership.id, RatingEntry.id):
        parts += connection.execute(select(func.count(table_id), func.sum(table_id))).all()
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()


def index_path(number: int) -> str:
    return f"{FOLDER}/index.html" if number == 1 else f"{PAGES_FOLDER}/{number}.html"


def linked_addresses(session: Session) -> dict[int, list[str]]:
    """player id -> the addresses linked to the player (as keys: lower case), in one query."""
    addresses: dict[int, list[str]] = {}
    for player_id, address in session.execute(select(RegisteredAddress.player_id, RegisteredAddress.address)):
        addresses.setdefault(player_id, []).append(address_key(address))
    return addresses


def inputs(session: Session, players: list[RegisteredPlayer], addresses: dict[int, list[str]]) -> dict[int, str]:
    """player id -> a digest of what the player's page is made of (its turns aside), for
    every player of ``players``; ``addresses``: ``linked_addresses``.  Three queries
    whatever their number."""
    seats: dict[str, list[tuple[int, int, str, str]]] = {}
    for address, seat_id, game_id, seat_status, game_status in session.execute(
            select(Membership.address, Membership.id, Membership.game_id, Membership.status, Game.status)
            .join(Game, Game.id == Membership.game_id)
            .where(Membership.role == PLAYER, Membership.power.is_not(None), Membership.status != DUMMY)):
        if address:
            seats.setdefault(address_key(address), []).append((seat_id, game_id, seat_status, game_status))
    ratings: dict[str, list[int]] = {}
    for entry_id, key in session.execute(select(RatingEntry.id, RatingEntry.player)):
        ratings.setdefault(key, []).append(entry_id)
    found = {}
    for player in players:
        keys = sorted(addresses.get(player.id, ()))
        parts = [player.name, player.real_name, player.country, player.zone, player.level, player.public,
                 f"{player.registered_at:%Y-%m-%d}", keys,
                 sorted(seat for key in keys for seat in seats.get(key, ())),
                 sorted(entry for key in [player.name, *keys] for entry in ratings.get(key, ()))]
        found[player.id] = page_key(parts)
    return found


def write_players(session: Session, files: ArchiveFiles, key: str | None = None,
                  *, everything: bool = False) -> tuple[list[str], set[int]]:
    """Bring the player and ratings pages up to date when their signature changed (always
    with ``everything``, which writes every page again); (the paths written, the ids of the
    games whose power lists must link a player newly listed or stop linking one gone)."""
    state = files.read_state(STATE_NAME)
    sign = signature(session)
    if not everything and state.get("signature") == sign and files.exists(f"{FOLDER}/index.html"):
        return [], set()
    fingerprint = pages.fingerprint_text(key)
    kept_pages: dict[str, str] = {} if everything else state.get("pages", {})
    kept_inputs: dict[str, str] = state.get("inputs", {})
    kept_games: dict[str, list[int]] = state.get("games", {})
    shown: dict[str, PlayerPage] = {}
    keys: dict[str, str] = {}
    games_of: dict[str, list[int]] = {}
    made_of: dict[str, str] = {}
    players = listed(session)
    addresses_of = linked_addresses(session)
    digests = inputs(session, players, addresses_of)
    for player in players:
        path = f"{FOLDER}/{pages.file_name(player.name)}.html"
        made_of[player.name] = page_key(fingerprint, digests[player.id])
        if (path in kept_pages and kept_inputs.get(player.name) == made_of[player.name] and player.name in kept_games
                and files.exists(path)):  # nothing it shows changed: neither read nor written
            keys[path], games_of[player.name] = kept_pages[path], kept_games[player.name]
            continue
        page = player_page(session, player)
        shown[path], keys[path] = page, page_key(fingerprint, page.lines)
        games_of[player.name] = sorted({row.game_id for row in member_rows(session, addresses_of.get(player.id, ()))})
    names = sorted(games_of, key=str.lower)
    count = page_count(len(names))
    listing = {index_path(n): ("../" if n == 1 else "../../", list(page_rows(names, n))) for n in range(1, count + 1)}
    page_paths = [(n, index_path(n)) for n in range(1, count + 1)]
    pools = ratings_lists(session, set(games_of))
    keys.update({path: page_key(fingerprint, base, rows, len(names), count) for path, (base, rows) in listing.items()})
    keys[RATINGS_PAGE] = page_key(fingerprint, pools)

    def render(path: str) -> str:
        if path == RATINGS_PAGE:
            return pages.render("ratings.html.j2", base="", pools=pools, count=TOP_COUNT, judge_key=fingerprint)
        if path in listing:
            base, rows = listing[path]
            number = next(n for n, p in page_paths if p == path)
            return pages.render("players.html.j2", base=base, names=rows, total=len(names), number=number,
                                pages=page_paths, judge_key=fingerprint)
        return pages.render("player.html.j2", base="../", player=shown[path], judge_key=fingerprint)

    written = write_changed(files, keys, kept_pages, render)
    remove_others(files, FOLDER, keys)
    remove_others(files, PAGES_FOLDER, keys)
    moved = set(kept_games) ^ set(games_of)
    games = {game_id for name in moved for game_id in (games_of.get(name) or kept_games.get(name) or [])}
    files.write_state({"signature": sign, "games": games_of, "pages": keys, "inputs": made_of}, STATE_NAME)
    return written, games


def ratings_lists(session: Session, names: set[str]) -> list[tuple[str, list[tuple[int, float, str, str]]]]:
    """Per pool: its heading and (rank, rating, the player as shown to others, the name of
    his page or "") of its top; ``names``: the players who have a page."""
    def rows(found: list[Standing]) -> list[tuple[int, float, str, str]]:
        return [(rank, row.rating, shown_name(row.player), row.player if row.player in names else "")
                for rank, row in enumerate(found, 1)]

    return [(f"{pool.value.capitalize()} games", rows(top(session, pool, TOP_COUNT))) for pool in Pool]
