"""What a person does in the inspector, as small steps over Selenium: open a page, wait for it, read it."""

from __future__ import annotations

from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 15.0
"""Seconds a page may take to show what a step waits for (a bound, not a measurement)."""

POLL = 0.05
"""Seconds between two looks while waiting (Selenium's default, half a second, was most of a step's time)."""


def ready(browser: WebDriver, page: str) -> None:
    """Wait until the page says it shows ``page`` (runs, run, machine, compare)."""
    WebDriverWait(browser, WAIT, poll_frequency=POLL).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == page
    )


def visit(browser: WebDriver, url: str, page: str) -> None:
    browser.get("about:blank")
    browser.get(url)
    ready(browser, page)


def text_of(browser: WebDriver, css: str) -> str:
    return browser.find_element(By.CSS_SELECTOR, css).text


def until_text(browser: WebDriver, css: str, wanted: str) -> WebElement:
    """Wait until the element ``css`` shows ``wanted`` in its text; return it."""

    def found(d: WebDriver) -> WebElement | bool:
        for element in d.find_elements(By.CSS_SELECTOR, css):
            if wanted in element.text:
                return element
        return False

    waiting = WebDriverWait(
        browser, WAIT, poll_frequency=POLL, ignored_exceptions=(StaleElementReferenceException,)
    )
    element = waiting.until(found)
    assert isinstance(element, WebElement)
    return element


def memory_field(browser: WebDriver, field: str) -> str:
    """The value the memory table shows for ``field`` at the current step."""
    return text_of(browser, f'table.memory tr[data-field="{field}"] td')


def shot(browser: WebDriver, path: Path, whole: bool = True) -> Path:
    """Keep a screenshot as a file: of the whole page, or of what the window shows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not whole:
        browser.save_screenshot(str(path))
        return path
    height = browser.execute_script("return document.documentElement.scrollHeight")
    width = browser.get_window_size()["width"]
    browser.set_window_size(width, max(800, min(int(height) + 120, 4000)))
    try:
        browser.save_screenshot(str(path))
    finally:
        browser.set_window_size(width, 800)
    return path
