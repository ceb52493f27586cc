"""Drive Debian's headless Chromium on a page of ``gridsim explore``: open it, wait for the
first render, hover, click, zoom, take a screenshot.

Used by the browser tests (``tests/analysis/test_explore_browser.py``) and by
``python tools/explore_screenshots.py``. Chromium is the system's (``/usr/bin/chromium``,
``apt-get install chromium chromium-driver``), driven through its own chromedriver by
Selenium: no tool downloads a browser of its own. The flags are those that work without a
display, a GPU, a sandbox or a network.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")  # fmt: skip


def missing() -> str | None:
    """Why no browser can run here (None when one can)."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).exists() and not shutil.which(Path(path).name):
            return f"{path} not found (apt-get install {package})"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


@contextlib.contextmanager
def browser() -> Iterator[object]:
    """A headless Chromium with a fresh profile, closed on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="gridsim-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_explorer(driver, page: Path, timeout_s: float = 60.0) -> float:
    """Open an explorer page and wait until its chart is drawn; the time from navigation to
    that moment (s): the page's own clock, when the Gantt chart's view has finished its first
    render."""
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rendered = driver.execute_script(
            "const e = window.gridsimExplorer;"
            "return e && e.rendered !== null && e.finished() ? performance.now() : null"
        )
        if rendered is not None:
            return float(rendered) / 1000
        time.sleep(0.02)
    raise TimeoutError(f"{page}: no render within {timeout_s:g} s")


def explorer(driver, expression: str):
    """The value of a JavaScript expression over the page's ``window.gridsimExplorer`` (``e``)."""
    return driver.execute_script(f"const e = window.gridsimExplorer; return {expression}")


def move_to(driver, x: float, y: float) -> None:
    """Move the pointer to page coordinates, in small steps as a hand would."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    actions = ActionBuilder(driver)
    for dx in (-12, -6, -2, 0):
        actions.pointer_action.move_to_location(int(x) + dx, int(y))
        actions.pointer_action.pause(0.03)
    actions.perform()


def click_at(driver, x: float, y: float) -> None:
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    move_to(driver, x, y)
    actions = ActionBuilder(driver)
    actions.pointer_action.click()
    actions.perform()


def wheel(driver, x: float, y: float, delta: int) -> None:
    """Turn the mouse wheel over page coordinates (negative: zoom in)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

    origin = ScrollOrigin.from_viewport(int(x), int(y))
    ActionChains(driver).scroll_from_origin(origin, 0, delta).perform()


def drawn_share(driver) -> float:
    """Share of the Gantt chart's canvas pixels that are not background (white)."""
    return float(driver.execute_script(
        "const view = Bokeh.index.find_one(window.gridsimExplorer.gantt);"
        "const canvas = view.canvas_view.primary.canvas;"
        "const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;"
        "let drawn = 0;"
        "for (let i = 0; i < data.length; i += 4) {"
        "  const ink = data[i] < 245 || data[i + 1] < 245 || data[i + 2] < 245;"
        "  if (data[i + 3] > 0 && ink) drawn++ }"
        "return drawn / (data.length / 4)"
    ))  # fmt: skip


def pan_frames(driver, zoom: float = 1.0, frames: int = 12) -> list[float]:
    """Milliseconds per frame while the view pans (2% of its width a frame), at ``zoom``
    times the whole schedule, in Bokeh's interactive mode, as its pan and wheel tools run:
    from the range's change to the second animation frame after it."""
    return driver.execute_async_script("""
      const done = arguments[arguments.length - 1], [zoom, frames] = [arguments[0], arguments[1]]
      const e = window.gridsimExplorer, range = e.gantt.x_range, times = []
      const middle = (range.start + range.end) / 2, half = (range.end - range.start) * zoom / 2
      range.setv({start: middle - half, end: middle + half})
      const shift = (range.end - range.start) * 0.02
      let frame = 0
      function step() {
        if (frame === frames) { done(times); return }
        const began = performance.now()
        Bokeh.documents[0].interactive_start(e.gantt)
        const sign = frame % 2 ? -1 : 1
        range.setv({start: range.start + sign * shift, end: range.end + sign * shift})
        requestAnimationFrame(() => requestAnimationFrame(() => {
          times.push(performance.now() - began); frame++; step() }))
      }
      requestAnimationFrame(() => requestAnimationFrame(step))
    """, zoom, frames)  # fmt: skip
