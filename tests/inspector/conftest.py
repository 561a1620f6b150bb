"""A real browser and a real server for the inspector's tests, started here on 127.0.0.1, stopped after.

The browser is Debian's Chromium driven through its chromedriver by Selenium (the
Service names the driver, so Selenium Manager never downloads one). Under CI=true a
missing browser fails the tests; elsewhere they are skipped with the command that
installs it (``bash scripts/system_packages.sh`` as root, or ``apt-get install chromium
chromium-driver``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from types import ModuleType

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

from agentsm_fn.durable import SqliteStore
from tests.example_modules import example
from tests.inspector.serving import Served

SHOTS = Path(tempfile.gettempdir()) / "agentsm-inspector-shots"


def chromium_paths() -> tuple[str, str] | str:
    """Chromium and its driver, or what is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    return "Chromium or chromedriver is missing: apt-get install chromium chromium-driver (as root)"


def open_chromium(width: int = 1280, height: int = 800) -> WebDriver:
    """Headless Chromium with a fresh profile and no background network (what works offline, as root)."""
    found = chromium_paths()
    if isinstance(found, str):
        if os.environ.get("CI") == "true":
            pytest.fail(found)
        pytest.skip(found)
    browser, driver = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    profile = tempfile.mkdtemp(prefix="inspector-chromium-")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for CSP violations
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.set_window_size(width, height)
    return chrome


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    chrome = open_chromium()
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture(scope="session")
def orders() -> ModuleType:
    """examples/durable_orders.py under the module name its stored values carry."""
    return example("durable_orders")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


@pytest.fixture
def shots() -> Path:
    """Where screenshots go: a temporary folder, or ``$INSPECTOR_SHOTS`` (``docs/inspector`` for the docs)."""
    folder = Path(os.environ.get("INSPECTOR_SHOTS") or SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


__all__ = ["Served", "chromium_paths", "open_chromium"]
