"""The clock control, as a person meets it: on a daemon run with --deterministic the page shows it
(initialize agreed the `clock` capability) and it moves the virtual clock; a recording made with it
through the page — an async command, a timer, a debounce, children and a list splice on appd —
replays exactly with bindery-replay, and a changed one fails naming the member. On the real clock
the control is not there."""
from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Callable

from conftest import Page, control, member, wait_for
from test_children import child, row_ids

REPO = Path(__file__).resolve().parents[3]
APPD = os.environ.get("APPD") or str(REPO / ".build" / "debug" / "appd")
REPLAY = os.path.join(os.path.dirname(os.environ.get("BINDERYD", "")) or ".", "bindery-replay")


def advance(page: Page, ms: int, now: int) -> None:
    clock = page.driver.find_element("id", "clock")
    box = clock.find_element("name", "ms")
    box.clear()
    box.send_keys(str(ms))
    clock.find_element("css selector", "[data-action='advance-clock']").click()
    page.wait_text(clock.find_element("css selector", "output"), "at %d ms" % now)


def query_sent(page: Page, index: int, text: str) -> bool:
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const app = window.binderyWeb;
        app.connection.request('session/state', {session: app.forms[arguments[0]].model.session})
          .then((result) => done(result.state.query === arguments[1]), () => done(false));""", index, text)


def test_the_clock_control_and_a_recording_that_replays_exactly(driver: Any, start_bridge: Callable[..., Any],
                                                              tmp_path: Path) -> None:
    bridge = start_bridge(shlex.quote(APPD) + " --deterministic")
    page = Page(driver, driver.current_window_handle, bridge)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    page.load("#/tabbedApp+quoteFeed+search")
    tabbed, feed, search = page.form("tabbedApp"), page.form("quoteFeed"), page.form("search")
    record = driver.find_element("id", "record")
    record.click()
    page.wait_text(record, "Stop and download")

    tab, ticking = child(tabbed, "countersTab"), child(tabbed, "clockTab")
    control(tab, "add").click()
    page.wait_until(lambda _: row_ids(tab) == ["1"], message="no first row")
    control(tab, "add").click()  # a splice: the rows kept the first
    page.wait_until(lambda _: row_ids(tab) == ["1", "2"], message="no second row")
    control(ticking, "start").click()
    page.wait_text(member(ticking, "isRunning"), "Yes")
    advance(page, 3000, 3000)
    page.wait_text(member(ticking, "ticks"), "3")

    control(feed, "refresh").click()  # an async command
    page.wait_text(member(feed, "refreshes"), "1")
    advance(page, 2000, 5000)
    page.wait_text(member(feed, "updates"), "5")  # the quote stream's timer, since the page opened it

    control(search, "query").send_keys("mo")
    page.wait_until(lambda _: query_sent(page, 2, "mo"), message="the query never reached the daemon")
    assert member(search, "searchCount").text == "0"  # the debounce waits for the clock
    advance(page, 300, 5300)
    page.wait_text(member(search, "searchCount"), "1")
    advance(page, 200, 5500)
    page.wait_text(member(search, "resultCount"), "1")

    record.click()
    page.wait_text(record, "Record")
    saved = wait_for(lambda: next(iter(tmp_path.glob("*.jsonl")), None), message="the download")
    text = saved.read_text()
    assert text.splitlines()[0] == '{"framing":"ndjson","daemon":"appd","arguments":["--deterministic"]}'
    assert '"method":"clock/advance"' in text and '"splices":{"rows":' in text
    done = subprocess.run([os.path.abspath(REPLAY), "--daemon", "appd=" + APPD, str(saved)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    saved.write_text(text.replace('"ticks":3', '"ticks":4'))
    done = subprocess.run([os.path.abspath(REPLAY), "--daemon", "appd=" + APPD, str(saved)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "params.changes.ticks: expected 4, actual 3" in done.stdout, done.stdout


def test_no_clock_control_on_the_real_clock(driver: Any, bridge: Any) -> None:
    page = Page(driver, driver.current_window_handle, bridge)
    page.load("#/email")
    page.form("email")
    assert driver.find_elements("id", "clock") == []
