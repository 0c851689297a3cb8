"""Child view models (protocol.md, "Child view models") in a real browser, against the real appd
(Examples/AppViewModels: $APPD, else the repository's .build/debug/appd) on the real clock:
tabbedApp's tabs, counter rows and detail, each block scoped by its session (data-session)."""
from __future__ import annotations

import os
from typing import Any, List

from conftest import Page, control, member, screenshot
from test_values import app, appd_bridge, daemon_state  # noqa: F401 (fixtures)


def child(form: Any, name: str) -> Any:
    """The block of the child session a member of `form` shows."""
    return member(form, name).find_element("css selector", ":scope > .child-slot > [data-session]")


def rows(tab: Any) -> List[Any]:
    return member(tab, "rows").find_elements("css selector", ":scope > .child-rows > [data-session]")


def row_ids(tab: Any) -> List[str]:
    return [row.find_element("css selector", "[data-member='id']").text for row in rows(tab)]


def session_state(page: Page, session: int) -> Any:
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        window.binderyWeb.connection.request('session/state', {session: arguments[0]})
          .then((result) => done(result.state), (error) => done({error: error.message}));""", session)


def test_tabbed_app_children_rows_and_detail(app: Page) -> None:  # noqa: F811
    form = app.go("#/tabbedApp").form("tabbedApp")
    clock, profile, tab = child(form, "clockTab"), child(form, "profileTab"), child(form, "countersTab")
    assert [clock.get_attribute("data-type"), profile.get_attribute("data-type"), tab.get_attribute("data-type")] == [
        "ClockTabViewModel", "ProfileTabViewModel", "CountersTabViewModel"]
    assert member(form, "countersTab").find_element("css selector", "legend").text == "Counters tab"
    assert member(form, "detail").get_attribute("data-null") is not None

    # Two rows, each a block with its own buttons.
    control(tab, "add").click()
    app.wait_until(lambda _: row_ids(tab) == ["1"], message="no first row")
    control(tab, "add").click()
    app.wait_until(lambda _: row_ids(tab) == ["1", "2"], message="no second row")
    first, second = rows(tab)
    assert first.get_attribute("data-type") == "CounterRowViewModel"
    assert control(second, "title").get_attribute("value") == "Counter 2"

    # The second row's own Increment: its session, not the first's; the first row is not redrawn.
    app.driver.execute_script("arguments[0].dataset.mark = 'kept'", first)
    control(second, "increment").click()
    app.wait_text(member(second, "count"), "1")
    app.wait_text(member(tab, "total"), "1")
    assert member(first, "count").text == "0"
    assert first.get_attribute("data-mark") == "kept"

    # moveToTop(id): the tab's button, its argument typed beside it; the row blocks move.
    tab.find_element("css selector", "[data-args-of='moveToTop']").send_keys("2")
    control(tab, "moveToTop").click()
    app.wait_until(lambda _: row_ids(tab) == ["2", "1"], message="row 2 never moved to the top")
    assert rows(tab)[1].get_attribute("data-mark") == "kept"  # the same block, moved

    # A title typed into a row goes to that row's session.
    title = control(first, "title")
    title.clear()
    title.send_keys("Cups")
    app.wait_text(member(first, "summary"), "Cups: 0")
    assert session_state(app, int(first.get_attribute("data-session")))["title"] == "Cups"

    # A typed argument goes as invoke's text: the daemon's refusal says what it expected, and is announced.
    box = form.find_element("css selector", "[data-args-of='showDetail']")
    box.send_keys("one")
    control(form, "showDetail").click()
    app.wait_text(form.find_element("css selector", "[data-result-of='showDetail']"), "expected a whole number")
    app.wait_text(app.driver.find_element("id", "announce"), "Show detail: expected a whole number")
    assert box.get_attribute("value") == "one"
    box.clear()
    # The detail comes (the app's showDetail(id)) and is live: row 1's object, a session of its own.
    box.send_keys("1")
    control(form, "showDetail").click()
    detail = app.wait_until(lambda _: child(form, "detail"), message="no detail")
    app.wait_text(member(detail, "summary"), "Cups: 0")
    control(detail, "increment").click()
    app.wait_text(member(detail, "count"), "1")
    if os.environ.get("BINDERY_WEB_SCREENSHOTS"):  # the README's pictures, children.png and children-dark.png
        app.driver.set_window_size(1000, 1300)
        screenshot(app, form, "children")

    # Removing row 2 detaches its session: its block goes.
    removed = second.get_attribute("data-session")
    remove_args = tab.find_element("css selector", "[data-args-of='remove']")
    remove_args.send_keys("2")
    control(tab, "remove").click()
    app.wait_until(lambda _: row_ids(tab) == ["1"], message="row 2 never removed")
    assert not form.find_elements("css selector", "[data-session='%s']" % removed)
    assert "error" in session_state(app, int(removed))

    # The detail goes (the app's hideDetail).
    control(form, "hideDetail").click()
    app.wait_until(lambda _: member(form, "detail").get_attribute("data-null") is not None, message="detail stayed")
    assert not member(form, "detail").find_elements("css selector", "[data-session]")

    # The clock tab's timer, on the real clock (a tick a second).
    control(clock, "start").click()
    app.wait_text(member(clock, "isRunning"), "Yes")
    app.wait_until(lambda _: int(member(clock, "ticks").text) >= 1, timeout=5, message="no tick")
    control(clock, "stop").click()
    app.wait_text(member(clock, "isRunning"), "No")

    # The profile tab's field.
    control(profile, "name").send_keys("Ada")
    app.wait_text(member(profile, "canSave"), "Yes")
    assert daemon_state(app)["profileTab"] == {"session": int(profile.get_attribute("data-session"))}
