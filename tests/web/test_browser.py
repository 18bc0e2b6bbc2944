"""The archive in a real browser: headless Chromium opens the index, a game, steps through
the phases with the keyboard, follows the Atom feed, a player's page and the ratings, and finds no console error (a
Content-Security-Policy violation is one) and no serious axe-core violation.

``JUDGE_WEB_SCREENSHOTS=DIR`` saves the main pages' screenshots there (docs/web/).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Iterator
from urllib.parse import urljoin
from urllib.request import urlopen

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from tests.web import browser
from tests.web.conftest import Served

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def chrome() -> Iterator[browser.webdriver.Chrome]:
    problem = browser.missing()
    assert problem is None, problem
    yield from browser.chromium()


def _screenshot(driver: browser.webdriver.Chrome, name: str) -> None:
    folder = os.environ.get("JUDGE_WEB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def _clean_page(driver: browser.webdriver.Chrome) -> None:
    assert browser.console_errors(driver) == []
    assert browser.serious_violations(driver) == []


def test_index_game_and_phases_with_the_keyboard(served: Served, chrome: browser.webdriver.Chrome) -> None:
    chrome.get(served.url + "/")
    assert chrome.title == "Games"
    links = [a.text for a in chrome.find_elements(By.CSS_SELECTOR, "main table a")]
    assert links == ["g1", "forming1"]  # running first, then forming; the private game is not there
    _screenshot(chrome, "index")
    _clean_page(chrome)

    chrome.find_element(By.LINK_TEXT, "g1").click()
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("g1"))
    phases = [a.text for a in chrome.find_elements(By.CSS_SELECTOR, "ol.phases a")]
    assert phases == ["S1901M", "F1901M", "W1901A"]
    # The deadline is shown in the reader's zone by the page's script: its UTC text moved to the title.
    deadline = chrome.find_element(By.CSS_SELECTOR, ".facts time")
    assert deadline.get_attribute("title").endswith("UTC")
    assert deadline.text != deadline.get_attribute("title")
    assert chrome.execute_script("return document.querySelector('figure img').naturalWidth") > 0
    _screenshot(chrome, "game")
    _clean_page(chrome)

    chrome.find_element(By.LINK_TEXT, "S1901M").click()
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("S1901M"))
    assert "A PAR - BUR" in chrome.find_element(By.ID, "h-orders").find_element(By.XPATH, "..").text
    _screenshot(chrome, "phase")
    _clean_page(chrome)
    for expected in ("F1901M", "W1901A"):
        chrome.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        WebDriverWait(chrome, 10).until(expected_conditions.title_contains(expected))
    chrome.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)  # the last phase: nowhere further
    chrome.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("F1901M"))
    assert chrome.find_element(By.ID, "previous").get_attribute("href").endswith("/S1901M.html")
    assert browser.console_errors(chrome) == []


def test_the_feed_leads_to_the_phases_and_the_list(served: Served, chrome: browser.webdriver.Chrome) -> None:
    chrome.get(served.url + "/games/g1/")
    feed_href = chrome.find_element(By.CSS_SELECTOR, "link[rel=alternate][type='application/atom+xml']") \
        .get_attribute("href")
    with urlopen(feed_href, timeout=10) as answer:
        assert answer.headers["Content-Type"] == "application/atom+xml"
        feed = ElementTree.fromstring(answer.read())
    entries = feed.findall(f"{ATOM}entry")
    titles = [entry.findtext(f"{ATOM}title") for entry in entries]
    assert "g1 W1901A: results" in titles and "g1: game started" in titles
    for entry in entries[:4]:
        chrome.get(urljoin(feed_href, entry.find(f"{ATOM}link").get("href")))
        assert chrome.find_element(By.TAG_NAME, "h1").text
        assert browser.console_errors(chrome) == []
    chrome.get(served.url + "/games/g1/list.html")
    assert "g1 S1901M results" in chrome.find_element(By.TAG_NAME, "main").text
    _screenshot(chrome, "list")
    _clean_page(chrome)


def test_a_player_page_from_a_game_and_the_ratings(served: Served, chrome: browser.webdriver.Chrome) -> None:
    chrome.get(served.url + "/games/g1/")
    chrome.find_element(By.LINK_TEXT, "Anna").click()
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("Anna"))
    card = chrome.find_element(By.CSS_SELECTOR, "pre.card").text
    assert "Country: Finland" in card and "Games: 1 played, 1 running" in card
    _screenshot(chrome, "player")
    _clean_page(chrome)
    chrome.find_element(By.LINK_TEXT, "Players").click()
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("Registered players"))
    assert [a.text for a in chrome.find_elements(By.CSS_SELECTOR, "ul.players a")] == ["Anna"]
    _clean_page(chrome)
    chrome.find_element(By.LINK_TEXT, "Ratings").click()
    WebDriverWait(chrome, 10).until(expected_conditions.title_contains("Ratings"))
    assert "No rated game yet." in chrome.find_element(By.TAG_NAME, "main").text
    _clean_page(chrome)
