"""The archive's pages as text: HTML (Jinja, autoescaped), the Atom feed, the chart.

Every page links only relative paths, so the archive works under any prefix of any web
server.  No page carries inline script or style: the one script and the one style sheet
are files under ``static/``, so a strict Content-Security-Policy holds.  Text that players
or masters wrote (names, descriptions, press) is escaped, stripped of bidirectional
controls (a right-to-left override would reverse what follows it) and cut to a bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Mapping, Sequence

from jinja2 import Environment, PackageLoader, StrictUndefined

import maps
from judge.web.views import GameView, PhaseView
from pictures import Geometry
from pictures.palette import power_colors

#: Bidirectional embedding, override and isolate controls, and other control characters
#: but tab and newline: removed from shown text.
_HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: A line of press longer than this is cut (a 100 KB line would only stretch the page).
LINE_CHARS = 400
#: A message's text beyond this is cut, with a note that the mbox holds all of it.
TEXT_CHARS = 20_000
#: The Content-Security-Policy of every page (also sent as a header by judge serve).
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
               "base-uri 'none'; form-action 'none'")
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


def clean(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` without bidirectional controls or other control characters, each line cut
    to ``LINE_CHARS`` and the whole to ``limit`` characters."""
    text = _HIDDEN.sub("", text)
    lines = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " [...]" for line in text.split("\n")]
    joined = "\n".join(lines)
    return joined if len(joined) <= limit else joined[:limit] + "\n[... cut here; the mbox holds the whole message]"


def file_name(name: str) -> str:
    """A game's or phase's name as a path segment; other names are refused (the store's
    names are already of this form)."""
    if not _SAFE_NAME.match(name) or name in (".", ".."):
        raise ValueError(f"{name!r} cannot name a file of the archive")
    return name


def iso(moment: datetime | None) -> str:
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def utc_text(moment: datetime | None) -> str:
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%a %d %b %Y %H:%M UTC")


@lru_cache(maxsize=16)
def geometry(map_name: str) -> Geometry:
    """A map's drawing, read once per process."""
    return maps.load_geometry(map_name)


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("judge.web", "templates"), undefined=StrictUndefined,
                      autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["clean"] = clean
    env.filters["iso"] = iso
    env.filters["utc"] = utc_text
    env.globals["policy"] = PAGE_POLICY
    return env


def render(template: str, **values: Any) -> str:
    return environment().get_template(template).render(**values)


def picture_name(phase: PhaseView) -> str:
    """The board picture of a phase, named by the record's digest: a rolled-back and
    replayed phase gets a new name, so a cached old picture is never shown for it."""
    return f"img/{file_name(phase.phase)}-{phase.digest[:12]}.svg"


def phase_page_name(phase: PhaseView) -> str:
    return f"phase/{file_name(phase.phase)}.html"


@dataclass(frozen=True)
class IndexRow:
    name: str
    status: str
    map_name: str
    phase: str
    deadline: datetime | None
    ended: bool
    group: str  # "forming", "running", "finished"


@dataclass(frozen=True)
class ListEntry:
    """One list mail as the archive shows it."""

    id: int
    kind: str
    subject: str
    sent_at: datetime
    text: str


@dataclass(frozen=True)
class IndexSection:
    """One group's games on one page of the index, with the links to the group's pages."""

    group: str  # "running", "forming", "finished"
    heading: str
    count: int  # the group's games on every page
    rows: tuple[IndexRow, ...]
    number: int  # this page's number within the group
    pages: tuple[tuple[int, str], ...]  # (number, path from the archive's root)


@dataclass(frozen=True)
class IndexPage:
    base: str  # the path from this page to the archive's root
    sections: tuple[IndexSection, ...]


def index_page(page: IndexPage, written_at: datetime, key: str | None = None) -> str:
    return render("index.html.j2", base=page.base, sections=page.sections, built_at=written_at,
                   judge_key=fingerprint_text(key))


def fingerprint_text(fingerprint: str | None) -> str:
    """A key's fingerprint as people compare it: groups of four, as gpg prints them."""
    return " ".join(fingerprint[i:i + 4] for i in range(0, len(fingerprint), 4)) if fingerprint else ""


def game_page(game: GameView, entries: Sequence[ListEntry], key: str | None = None) -> str:
    return render("game.html.j2", base="../../", game=game, chart=supply_chart(game), judge_key=fingerprint_text(key),
                   phases=[(p, phase_page_name(p)) for p in game.phases],
                   latest=(picture_name(game.phases[-1]) if game.phases else None),
                   latest_phase=(game.phases[-1] if game.phases else None), mail_count=len(entries))


def phase_page(game: GameView, index: int) -> str:
    """A phase's page: it shows that phase and links its neighbours only, so a new phase
    changes no page but its own and its predecessor's."""
    phase = game.phases[index]
    previous = game.phases[index - 1] if index > 0 else None
    following = game.phases[index + 1] if index + 1 < len(game.phases) else None
    by_power: dict[str, list[tuple[str, str]]] = {}
    for line in phase.results:
        by_power.setdefault(line.power, []).append((line.order, line.result))
    return render("phase.html.j2", base="../../../", game=game, phase=phase, number=index + 1,
                   picture=picture_name(phase).removeprefix("img/"),
                   previous=(file_name(previous.phase) + ".html") if previous else None,
                   following=(file_name(following.phase) + ".html") if following else None,
                   by_power=sorted(by_power.items()),
                   centres=sorted(phase.centres.items(), key=lambda item: (-item[1], item[0])))


def list_page(game: GameView, entries: Sequence[ListEntry]) -> str:
    return render("list.html.j2", base="../../", game=game, entries=entries)


def atom_feed(game: GameView, entries: Sequence[ListEntry], domain: str) -> str:
    """The game's Atom feed (RFC 4287): one entry per processed phase and per list mail."""
    items: list[dict[str, Any]] = []
    for phase in game.phases:
        items.append({"id": f"tag:{domain},2000:{game.name}/phase/{phase.phase}",
                      "title": f"{game.name} {phase.phase}: results", "updated": phase.processed_at,
                      "href": phase_page_name(phase), "summary": _centre_summary(phase.centres)})
    for entry in entries:
        items.append({"id": f"tag:{domain},2000:{game.name}/list/{entry.id}", "title": clean(entry.subject, 200),
                      "updated": entry.sent_at, "href": f"list.html#m{entry.id}",
                      "summary": clean(entry.text, 2000)})
    items.sort(key=lambda item: (iso(item["updated"]), item["id"]), reverse=True)
    return render("feed.atom.j2", game=game, items=items[:50], domain=domain)


def _centre_summary(centres: Mapping[str, int]) -> str:
    ranked = sorted(centres.items(), key=lambda item: (-item[1], item[0]))
    return "Supply centres: " + ", ".join(f"{power} {count}" for power, count in ranked if count)


@dataclass(frozen=True)
class Chart:
    """The supply-centre chart: one line per power, one point per year (the count after
    the year's last processed phase)."""

    width: int
    height: int
    years: tuple[int, ...]
    top: int
    lines: tuple[tuple[str, str, str], ...]  # (power, colour, SVG points)
    table: tuple[tuple[int, tuple[int, ...]], ...]  # (year, counts in power order)
    powers: tuple[str, ...]


CHART_WIDTH, CHART_HEIGHT, _PAD = 640, 260, 32


def supply_chart(game: GameView) -> Chart | None:
    last_of_year: dict[int, Mapping[str, int]] = {}
    for phase in game.phases:
        if phase.year is not None:
            last_of_year[phase.year] = phase.centres
    if not last_of_year:
        return None
    years = tuple(sorted(last_of_year))
    powers = tuple(row.power for row in game.powers)
    top = max([1] + [count for counts in last_of_year.values() for count in counts.values()])
    colours = power_colors(powers, geometry(game.map_name).colors)
    span = max(1, len(years) - 1)

    def point(index: int, count: int) -> str:
        x = _PAD + (CHART_WIDTH - 2 * _PAD) * index / span
        y = CHART_HEIGHT - _PAD - (CHART_HEIGHT - 2 * _PAD) * count / top
        return f"{x:.1f},{y:.1f}"

    lines = tuple((power, colours[power], " ".join(point(i, last_of_year[year].get(power, 0))
                                                   for i, year in enumerate(years))) for power in powers)
    table = tuple((year, tuple(last_of_year[year].get(power, 0) for power in powers)) for year in years)
    return Chart(CHART_WIDTH, CHART_HEIGHT, years, top, lines, table, powers)
