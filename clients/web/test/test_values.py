"""The value types of protocol.md ("Value types") in a real browser, against the real appd
(Examples/AppViewModels: $APPD, else the repository's .build/debug/appd) on the real clock."""
from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any, Callable, Dict, Iterator

import pytest

from conftest import REPO, Bridge, Page, control, member, wait_for


@pytest.fixture(scope="session")
def appd_bridge(start_bridge: Callable[..., Bridge]) -> Bridge:
    path = os.environ.get("APPD") or os.path.join(REPO, ".build", "debug", "appd")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("These tests run against the real appd: set APPD or run `swift build --product appd` "
                    "(looked for %s)" % path, pytrace=False)
    return start_bridge(shlex.quote(path))


@pytest.fixture
def app(driver: Any, tabs: Dict[str, Page], appd_bridge: Bridge) -> Iterator[Page]:
    """The main tab, on the appd bridge (the next test on the other bridge loads the page again)."""
    yield Page(driver, tabs["main"].handle, appd_bridge).focus()


def daemon_state(page: Page) -> Dict[str, Any]:
    """The first form's session as the daemon holds it (session/state), not as the page shows it."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const app = window.binderyWeb;
        app.connection.request('session/state', {session: app.forms[0].model.session})
          .then((result) => done(result.state), (error) => done({error: error.message}));""")


def error_of(form: Any, name: str) -> Any:
    return form.find_element("css selector", "[data-error-of='%s']" % name)


def retype(control_element: Any, text: str) -> None:
    control_element.clear()
    control_element.send_keys(text)


def select(element: Any, text: str) -> None:
    from selenium.webdriver.support.select import Select
    Select(element).select_by_visible_text(text)


def options(element: Any) -> list:
    return [option.text for option in element.find_elements("css selector", "option")]


CATALOGUE_TEXT = os.path.join(REPO, "clients", "shared", "value-catalogue.json")


def sent_requests(page: Page) -> None:
    """Keeps every request the page sends from now on in window.sentRequests."""
    page.driver.execute_script("""
        const connection = window.binderyWeb.connection;
        window.sentRequests = [];
        const call = connection.call.bind(connection);
        connection.call = (method, params) => { window.sentRequests.push({method, params}); return call(method, params); };""")


def test_the_shared_catalogue_text_is_the_daemons(appd_bridge: Bridge) -> None:
    """clients/shared/value-catalogue.json, which every face's suite checks, is the daemon's display."""
    import subprocess
    path = os.environ.get("APPD") or os.path.join(REPO, ".build", "debug", "appd")
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {"display": True}}},
             {"jsonrpc": "2.0", "id": 2, "method": "session/open", "params": {"type": "valueCatalogue"}}]
    out = subprocess.run([path, "--deterministic"], input="".join(json.dumps(l) + "\n" for l in lines),
                         capture_output=True, text=True, timeout=30).stdout.splitlines()
    opened = json.loads(out[1])["result"]
    with open(CATALOGUE_TEXT, encoding="utf-8") as file:
        expected = json.load(file)
    for name, text in expected.items():
        value = opened["state"][name]
        if name in opened["display"]:
            assert text == opened["display"][name], name
        elif isinstance(value, list):
            assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=False), name  # the faces' list rule
        else:
            assert isinstance(value, str) and text == value, name
    members = [name for name in opened["state"] if "." not in name]
    assert sorted(expected) == sorted(members), "every member of the catalogue"


def test_the_value_catalogue_shows_the_text_every_face_shows(app: Page) -> None:
    form = app.go("#/valueCatalogue").form("valueCatalogue")
    with open(CATALOGUE_TEXT, encoding="utf-8") as file:
        expected = json.load(file)
    shown = {}
    for name in expected:
        found = form.find_elements("css selector", "[name='%s']" % name)
        shown[name] = found[0].get_attribute("value") if found else member(form, name).text
    assert shown == expected
    assert control(form, "date").get_attribute("data-format") == "date-time"
    assert options(control(form, "priority")) == ["low", "normal", "high"]
    control(form, "reset").click()
    app.wait_until(lambda _: control(form, "shape").get_attribute("value") == "point", message="no reset")
    assert control(form, "price").get_attribute("value") == "0"


def test_edits_go_as_text_and_the_daemons_refusal_shows_beside_the_field(app: Page) -> None:
    form = app.go("#/valueCatalogue").form("valueCatalogue")
    sent_requests(app)
    date = control(form, "date")
    retype(date, "2025-13-01T10:00:00Z")
    app.wait_text(error_of(form, "date"), "expected a date and time, ISO 8601 (2025-11-25T10:00:00Z)")
    assert date.get_attribute("value") == "2025-13-01T10:00:00Z"  # the typed text stays to be fixed
    assert daemon_state(app)["date"] == "2025-11-25T10:00:00.250Z"  # nothing written
    writes = [r["params"] for r in app.driver.execute_script("return window.sentRequests") if r["method"] == "setField"]
    assert writes[-1] == {"session": writes[-1]["session"], "field": "date", "text": "2025-13-01T10:00:00Z"}
    announced = app.driver.find_element("id", "announce")
    app.wait_text(announced, lambda text: "Date: expected a date and time" in text)
    retype(date, "2026-01-01T09:30:00+01:00")
    app.wait_text(error_of(form, "date"), "")
    wait_for(lambda: daemon_state(app)["date"] == "2026-01-01T08:30:00.000Z", message="the date stored")
    # The daemon stored it in UTC, and says so: the field shows what it holds once typing stops.
    date.send_keys("\t")
    app.wait_until(lambda _: date.get_attribute("value") == "2026-01-01T08:30:00.000Z", message="the UTC date")
    retype(control(form, "price"), "abc")
    app.wait_text(error_of(form, "price"), "expected a decimal number (0.30)")
    retype(control(form, "price"), "0.10")
    wait_for(lambda: daemon_state(app)["price"] == "0.1", message="the price")
    retype(control(form, "selection"), "[1, 2, 5, 9]")
    wait_for(lambda: daemon_state(app)["selection"] == [1, 2, 5, 9], message="the selection")
    retype(control(form, "scores"), '["a": 1, "b": 2, "c": 3]')
    wait_for(lambda: daemon_state(app)["scores"] == {"a": 1, "b": 2, "c": 3}, message="the scores")
    retype(control(form, "shape"), "hexagon")
    app.wait_text(error_of(form, "shape"), "expected one of circle(..), rectangle(..), point")
    retype(control(form, "shape"), "rectangle(2, 3.5)")
    wait_for(lambda: daemon_state(app)["shape"] == {"case": "rectangle", "_0": 2.0, "_1": 3.5}, message="the shape")
    app.wait_text(error_of(form, "shape"), "")


def test_todo_list_two_added_one_toggled_by_its_row_button(app: Page) -> None:
    form = app.go("#/todoList").form("todoList")
    for title in ("Buy milk", "Call Ada"):
        control(form, "newTitle").send_keys(title)
        add = control(form, "add")
        app.wait_until(lambda _: add.is_enabled(), message="Add never enabled")
        add.click()
        app.wait_until(lambda _: title in member(form, "items").text, message="no " + title)
    app.wait_text(member(form, "remainingCount"), "2")
    rows = member(form, "items").find_elements("css selector", "tbody tr")
    # isDone is a glyph whose word a screen reader reads; the id is no column, but the row's tooltip.
    assert [[cell.text for cell in row.find_elements("css selector", "td")] for row in rows] == [
        ["Buy milk", "✗", "", "Toggle Delete"], ["Call Ada", "✗", "", "Toggle Delete"]]
    headers = member(form, "items").find_elements("css selector", "thead th")
    assert [header.text for header in headers] == ["Title", "Is done", "Due", ""]
    flag = rows[0].find_element("css selector", "td[data-name='isDone'] .bool")
    assert (flag.get_attribute("role"), flag.get_attribute("aria-label"), flag.get_attribute("data-value")) == (
        "img", "no", "false")
    full = rows[0].get_attribute("data-id")
    assert re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", full), full
    assert rows[0].get_attribute("title") == "ID " + full
    assert full == daemon_state(app)["items"][0]["id"]
    # Toggle on the second row: the row, as shown, is the command's argument.
    rows[1].find_element("css selector", "button[data-row-command='toggle']").click()
    app.wait_text(member(form, "remainingCount"), "1")
    done = member(form, "items").find_elements("css selector", "tbody tr td[data-name='isDone']")
    app.wait_until(lambda _: [cell.text for cell in done] == ["✗", "✓"], message="not done")
    assert [cell.find_element("css selector", ".bool").get_attribute("aria-label") for cell in done] == ["no", "yes"]
    assert [item["isDone"] for item in daemon_state(app)["items"]] == [False, True]
    # Delete on the first row; a wrong due date is refused by the daemon, and nothing is written.
    member(form, "items").find_elements("css selector", "button[data-row-command='delete']")[0].click()
    app.wait_until(lambda _: "Buy milk" not in member(form, "items").text, message="not deleted")
    control(form, "newDue").send_keys("friday")
    app.wait_text(error_of(form, "newDue"), "expected a date and time, ISO 8601 (2025-11-25T10:00:00Z), or nothing")
    assert daemon_state(app)["newDue"] is None


def test_settings_enums_are_selects_int_raw_and_foundation(app: Page) -> None:
    form = app.go("#/settings").form("settings")
    assert options(control(form, "distanceUnit")) == ["kilometers", "miles"]
    assert options(control(form, "unitStyle")) == ["short", "medium", "long"]
    select(control(form, "distanceUnit"), "miles")
    app.wait_text(member(form, "goalSummary"), "5 mi a day")
    select(control(form, "unitStyle"), "long")
    app.wait_text(member(form, "goalSummary"), "5 miles a day")
    assert daemon_state(app)["unitStyle"] == "long"
    assert control(form, "reminderTime").get_attribute("value") == "2026-01-01T08:00:00.000Z"


def test_search_shows_its_union_state_change(app: Page) -> None:
    form = app.go("#/search").form("search")
    state = member(form, "state")
    assert state.text == "idle"
    app.driver.execute_script("""
        const node = arguments[0];
        window.seenStates = [node.textContent];
        new MutationObserver(() => {
          const shown = node.textContent.replace(/\\(.*/, '');
          if (shown !== window.seenStates[window.seenStates.length - 1]) window.seenStates.push(shown);
        }).observe(node, {childList: true, subtree: true, characterData: true});""", state)
    control(form, "query").send_keys("Mo")
    app.wait_text(state, 'loaded([Film(id: 2, title: "Modern Times", year: 1936)])')
    assert app.driver.execute_script("return window.seenStates") == ["idle", "loading", "loaded"]
    assert member(form, "resultCount").text == "1"
    retype(control(form, "query"), "error")
    app.wait_text(state, 'failed("The film service is offline")')


def test_order_totals_are_exact_decimals(app: Page) -> None:
    form = app.go("#/order").form("order")

    def add(sku: str) -> None:
        for row in member(form, "catalog").find_elements("css selector", "tbody tr"):
            if row.find_element("css selector", "td[data-name='sku']").text == sku:
                row.find_element("css selector", "button[data-row-command='add']").click()

    add("cup")
    app.wait_text(member(form, "total"), "0.1")
    add("pot")
    app.wait_text(member(form, "total"), "0.3")  # 0.1 + 0.2, exactly
    add("pot")
    app.wait_text(member(form, "subtotal"), "0.5")
    control(form, "couponCode").send_keys("SAVE10")
    app.wait_text(member(form, "discount"), "0.05")
    app.wait_text(member(form, "total"), "0.45")
    member(form, "lines").find_elements("css selector", "button[data-row-command='remove']")[0].click()
    app.wait_text(member(form, "total"), "0.36")
    control(form, "placeOrder").click()
    app.wait_text(member(form, "placedOrderID"), lambda text: re.fullmatch(r"[0-9a-f]{8}-[-0-9a-f]{27}", text))
    app.wait_until(lambda _: member(form, "lines").get_attribute("data-length") == "0", message="lines left")
