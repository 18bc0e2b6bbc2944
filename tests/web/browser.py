"""Headless Chromium driven by Selenium, with axe-core injected for accessibility checks.

Debian's ``chromium`` and ``chromium-driver`` and npm's ``axe-core`` (in
tests/web/node_modules) are installed by .ci/run; without them these tests fail, saying so.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
#: Impacts that fail a page (axe's "moderate" and "minor" are reported, not failed).
SERIOUS = ("serious", "critical")


def missing() -> str | None:
    for path, what in ((CHROMIUM, "Debian's chromium"), (CHROMEDRIVER, "Debian's chromium-driver"),
                       (AXE, "npm's axe-core in tests/web/node_modules")):
        if not Path(path).exists():
            return f"{what} is not installed ({path}); .ci/run installs it"
    return None


def chromium() -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a fresh profile, its console log kept."""
    profile = tempfile.mkdtemp(prefix="judge-chromium-")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: webdriver.Chrome) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def serious_violations(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the open page."""
    driver.execute_script(AXE.read_text("utf-8"))
    violations = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done(r.violations)).catch(e => done([{id: 'axe-error', impact: 'critical',"
        " help: String(e), nodes: []}]));")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n.get("target") for n in v.get("nodes", [])][:3]}
            for v in violations if v.get("impact") in SERIOUS]
