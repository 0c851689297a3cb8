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


def test_values_as_text_and_back(app: Page) -> None:
    app.go("#/")
    got = app.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('./values.js').then((v) => {
          const shape = {type: 'union', cases: [{name: 'circle', members: [{name: 'radius', type: 'number'}]},
            {name: 'rectangle', members: [{name: '_0', type: 'number'}, {name: '_1', type: 'number'}]},
            {name: 'point', members: []}]};
          const date = {type: 'string', format: 'date-time'};
          const dict = {type: 'dictionary', values: {type: 'array', items: {type: 'string'}}};
          const set = {type: 'array', items: {type: 'integer'}, uniqueItems: true};
          done({
            date: v.parseText(date, '2026-01-01T09:30:00+01:00'),
            badDates: ['2025-13-01T10:00:00Z', '2025-02-29T10:00:00Z', '2025-11-25', '2025-11-25T10:00:00']
              .map((t) => v.parseText(date, t).ok),
            why: v.parseText(date, 'tomorrow'),
            decimal: v.parseText({type: 'string', format: 'decimal'}, '0.30'),
            badDecimal: v.parseText({type: 'string', format: 'decimal'}, '1,5'),
            uuid: v.parseText({type: 'string', format: 'uuid'}, '0F8FAD5B-D9CB-469F-A165-70867728950E').ok,
            set: v.parseText(set, '1, 2,5'),
            badSet: v.parseText(set, '1, x'),
            dictText: v.controlText(dict, {'1': [], '2': ['x']}),
            dict: v.parseText(dict, '1: []\\n2: [x, "y, z"]'),
            shapeText: [v.controlText(shape, {case: 'circle', radius: 1.5}),
                        v.controlText(shape, {case: 'rectangle', _0: 2, _1: 3}), v.controlText(shape, {case: 'point'})],
            shape: v.typeParse(shape, 'rectangle(2, 3)'),
            missing: v.typeParse(shape, 'circle'),
          });
        });""")
    assert got["date"] == {"ok": True, "value": "2026-01-01T09:30:00+01:00"}
    assert got["badDates"] == [False, False, False, False]
    assert got["why"] == {"ok": False, "error": '"tomorrow" is not a date and time, ISO 8601 like 2025-11-25T10:00:00Z'}
    assert got["decimal"] == {"ok": True, "value": "0.30"}  # a Decimal stays a string: exact
    assert got["badDecimal"]["ok"] is False
    assert got["uuid"] is True
    assert got["set"] == {"ok": True, "value": [1, 2, 5]}
    assert got["badSet"] == {"ok": False, "error": 'item 2: "x" is not a number'}
    assert got["dictText"] == "1: []\n2: [x]"
    assert got["dict"] == {"ok": True, "value": {"1": [], "2": ["x", "y, z"]}}
    assert got["shapeText"] == ["circle(radius: 1.5)", "rectangle(2, 3)", "point"]
    assert got["shape"] == {"ok": True, "value": {"case": "rectangle", "_0": 2, "_1": 3}}
    assert got["missing"] == {"ok": False, "error": "circle needs radius"}


def test_the_value_catalogue_shows_every_kind_of_value(app: Page) -> None:
    form = app.go("#/valueCatalogue").form("valueCatalogue")
    values = {name: control(form, name).get_attribute("value")
              for name in ("date", "id", "link", "price", "bytes", "selection", "tags", "scores", "address",
                           "labels", "context")}
    assert values == {
        "date": "2025-11-25T10:00:00.250Z", "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "link": "https://example.com/a?b=c", "price": "0.3", "bytes": "AAEC+g==", "selection": "1, 2, 5",
        "tags": "a, b", "scores": "a: 1\nb: 2", "address": "street: 1 Main St\ncity: Springfield",
        "labels": "{name: home, colour: green}", "context": "1: []\n2: [x]",
    }
    assert control(form, "date").get_attribute("data-format") == "date-time"
    assert control(form, "priority").get_attribute("value") == "normal"
    assert options(control(form, "priority")) == ["low", "normal", "high"]
    shape = control(form, "shape")
    assert shape.tag_name == "select" and shape.get_attribute("value") == "circle"
    assert options(shape) == ["circle", "rectangle", "point"]
    radius = form.find_element("css selector", "[data-members-of='shape'] [data-union-member='radius']")
    assert radius.get_attribute("value") == "1.5"
    assert member(form, "lastError").text == "Something went wrong"
    assert member(form, "pair").text == "width\n3\nheight\n4"
    control(form, "reset").click()
    app.wait_until(lambda _: control(form, "shape").get_attribute("value") == "point", message="no reset")
    assert control(form, "price").get_attribute("value") == "0"
    assert form.find_elements("css selector", "[data-members-of='shape'] input") == []


def test_a_date_is_checked_before_it_is_sent_and_other_kinds_are_edited(app: Page) -> None:
    form = app.go("#/valueCatalogue").form("valueCatalogue")
    date = control(form, "date")
    retype(date, "2025-13-01T10:00:00Z")
    app.wait_text(error_of(form, "date"),
                  '"2025-13-01T10:00:00Z" is not a date and time, ISO 8601 like 2025-11-25T10:00:00Z')
    assert daemon_state(app)["date"] == "2025-11-25T10:00:00.250Z"  # not sent
    retype(date, "2026-01-01T09:30:00+01:00")
    app.wait_text(error_of(form, "date"), "")
    wait_for(lambda: daemon_state(app)["date"] == "2026-01-01T08:30:00.000Z", message="the date stored")
    # The daemon stored it in UTC, and says so: the field shows what it holds once typing stops.
    date.send_keys("\t")
    app.wait_until(lambda _: date.get_attribute("value") == "2026-01-01T08:30:00.000Z", message="the UTC date")
    retype(control(form, "price"), "1,5")
    app.wait_text(error_of(form, "price"), '"1,5" is not a decimal number like 12.50')
    retype(control(form, "price"), "0.10")
    wait_for(lambda: daemon_state(app)["price"] == "0.1", message="the price")
    retype(control(form, "selection"), "1, 2, 5, 9")
    wait_for(lambda: daemon_state(app)["selection"] == [1, 2, 5, 9], message="the selection")
    retype(control(form, "scores"), "a: 1\nb: 2\nc: 3")
    wait_for(lambda: daemon_state(app)["scores"] == {"a": 1, "b": 2, "c": 3}, message="the scores")
    # A union: its case picked, then its members typed; a missing member is said, not sent.
    select(control(form, "shape"), "rectangle")
    app.wait_text(error_of(form, "shape"), "_0: a number is required")
    inputs = form.find_elements("css selector", "[data-members-of='shape'] input")
    assert [i.get_attribute("data-union-member") for i in inputs] == ["_0", "_1"]
    inputs[0].send_keys("2")
    inputs[1].send_keys("3.5")
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
    # isDone is a glyph whose word a screen reader reads; the id its first 8 digits, whole in its tooltip.
    assert [[cell.text for cell in row.find_elements("css selector", "td")][1:] for row in rows] == [
        ["Buy milk", "✗", "", "Toggle Delete"], ["Call Ada", "✗", "", "Toggle Delete"]]
    flag = rows[0].find_element("css selector", "td[data-name='isDone'] .bool")
    assert (flag.get_attribute("role"), flag.get_attribute("aria-label"), flag.get_attribute("data-value")) == (
        "img", "no", "false")
    short = rows[0].find_element("css selector", "td[data-name='id'] .short-id")
    full = short.get_attribute("title")
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", full), full
    assert short.text == full[:8] + "…" and short.get_attribute("aria-label") == full
    assert full == daemon_state(app)["items"][0]["id"].lower() or full == daemon_state(app)["items"][0]["id"]
    # Toggle on the second row: the row, as shown, is the command's argument.
    rows[1].find_element("css selector", "button[data-row-command='toggle']").click()
    app.wait_text(member(form, "remainingCount"), "1")
    done = member(form, "items").find_elements("css selector", "tbody tr td[data-name='isDone']")
    app.wait_until(lambda _: [cell.text for cell in done] == ["✗", "✓"], message="not done")
    assert [cell.find_element("css selector", ".bool").get_attribute("aria-label") for cell in done] == ["no", "yes"]
    assert [item["isDone"] for item in daemon_state(app)["items"]] == [False, True]
    # Delete on the first row; a wrong due date is refused before it is sent.
    member(form, "items").find_elements("css selector", "button[data-row-command='delete']")[0].click()
    app.wait_until(lambda _: "Buy milk" not in member(form, "items").text, message="not deleted")
    control(form, "newDue").send_keys("friday")
    app.wait_text(error_of(form, "newDue"), lambda text: text.startswith('"friday" is not a date and time'))
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
        window.seenCases = [node.querySelector('[data-case]').dataset.case];
        new MutationObserver(() => {
          const shown = node.querySelector('[data-case]');
          if (shown && shown.dataset.case !== window.seenCases[window.seenCases.length - 1]) {
            window.seenCases.push(shown.dataset.case);
          }
        }).observe(node, {childList: true, subtree: true});""", state)
    control(form, "query").send_keys("Mo")
    app.wait_text(state, lambda text: text.startswith("loaded"))
    assert app.driver.execute_script("return window.seenCases") == ["idle", "loading", "loaded"]
    rows = state.find_elements("css selector", "tbody tr")
    assert [row.text for row in rows] == ["2 Modern Times 1936"]
    assert member(form, "resultCount").text == "1"
    retype(control(form, "query"), "error")
    app.wait_text(state, "failed(The film service is offline)")


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
