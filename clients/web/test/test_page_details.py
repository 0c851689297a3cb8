"""What a person meets on the page beyond the values: a card that keeps its width, Enter in a field,
what a screen reader is told, argument boxes, text that fits, the dark scheme and the 403 page.

BINDERY_WEB_SCREENSHOTS=clients/web takes the README's pictures in light and dark
(login.png, todo.png, refused.png and their -dark.png twins).
"""
from __future__ import annotations

import http.client
import os
from typing import Any, Iterator

import pytest

from conftest import Bridge, Page, control, member, screenshot, set_scheme
from test_values import app, appd_bridge  # noqa: F401 (fixtures)

SHOTS = os.environ.get("BINDERY_WEB_SCREENSHOTS")


def announced(page: Page) -> str:
    return str(page.driver.find_element("id", "announce").get_attribute("textContent"))


def width(element: Any) -> float:
    return float(element.rect["width"])


@pytest.fixture
def scheme(page: Page) -> Iterator[Any]:
    """Sets the browser's prefers-color-scheme; back to light after the test."""
    yield lambda value: set_scheme(page, value)
    set_scheme(page, "light")


def test_enter_logs_in_the_card_keeps_its_width_and_the_result_is_announced(page: Page, scheme: Any) -> None:
    form = page.go("#/login").form("login")
    before = width(form)
    assert "primary" in (control(form, "login").get_attribute("class") or "")
    control(form, "firstName").send_keys("Ada")
    # Enter right after typing: the name is sent first, and Login runs once it is enabled.
    control(form, "lastName").send_keys("Lovelace\n")
    result = form.find_element("css selector", "output[data-result-of='login']")
    page.wait_text(result, lambda text: text.startswith("→ firstName: Ada"), timeout=15)
    assert width(form) == before
    page.wait_until(lambda _: announced(page).startswith("Login: → firstName: Ada"), message="not announced")
    live = page.driver.find_element("id", "announce")
    assert live.get_attribute("aria-live") == "polite" and live.rect["width"] <= 1  # heard, not seen
    if SHOTS:  # the whole page: the header (its status and the Record button) and the form
        size = page.driver.get_window_size()
        page.driver.set_window_size(640, 700)
        screenshot(page, page.driver.find_element("tag name", "body"), "login")
        page.driver.set_window_size(size["width"], size["height"])


def test_a_boolean_reads_yes_or_no_marked_and_a_screen_reader_hears_the_word(page: Page) -> None:
    form = page.go("#/login").form("login")
    can = member(form, "loginInputValid")

    def seen(element: Any) -> Any:
        """What a person sees: the word and the mark before it (the mark's alternative text is empty)."""
        return page.driver.execute_script(
            "const e = arguments[0].querySelector('.yes-no'); if (!e) return null;"
            "const before = getComputedStyle(e, '::before');"
            "return [e.textContent, before.content, e.dataset.value]", element)

    assert seen(can) == ["No", '"✗" / ""', "false"]
    row = can.find_element("xpath", "ancestor::*[contains(@class, 'row')][1]")
    assert row.text.replace("\n", " ").startswith("Can log in")
    control(form, "firstName").send_keys("Ada")
    control(form, "lastName").send_keys("Lovelace")
    page.wait_until(lambda _: seen(can) == ["Yes", '"✓" / ""', "true"], message="never Yes")
    assert seen(member(form, "userLoadingInProgress"))[0] == "No"


def test_an_error_is_announced_and_enter_in_an_empty_form_runs_nothing(page: Page) -> None:
    form = page.go("#/login").form("login")
    control(form, "firstName").send_keys("\n")  # Login is not enabled: nothing is sent
    page.wait_until(lambda _: announced(page) == "Login is not available now", message="not said")
    assert member(form, "userLoadingInProgress").text == "No"
    control(form, "firstName").send_keys("Mallory")
    control(form, "lastName").send_keys("Smith\n")
    result = form.find_element("css selector", "output[data-result-of='login']")
    page.wait_text(result, lambda text: text != "" and not text.startswith("→"), timeout=15)
    assert "error" in (result.get_attribute("class") or "")
    page.wait_until(lambda _: announced(page) == "Login: " + result.text, message="the error not announced")


def test_rows_have_the_buttons_and_a_command_of_a_number_has_a_labelled_box(app: Page, scheme: Any) -> None:
    form = app.go("#/todoList").form("todoList")
    # Toggle and Delete take a row: no box to type one into, and their own buttons say so.
    assert form.find_elements("css selector", "[data-args-of]") == []
    toggle = control(form, "toggle")
    note = form.find_element("id", toggle.get_attribute("aria-describedby"))
    assert note.text == "on each row"
    for title in ("Buy milk", "Call Ada"):
        control(form, "newTitle").send_keys(title + "\n")  # Enter runs Add, the form's first command
        app.wait_until(lambda _: title in member(form, "items").text, message="no " + title)
        app.wait_until(lambda _: control(form, "newTitle").get_attribute("value") == "", message="title kept")
    rows = member(form, "items").find_elements("css selector", "tbody tr")
    rows[1].find_element("css selector", "button[data-row-command='toggle']").click()
    app.wait_text(member(form, "remainingCount"), "1")
    screenshot(app, form, "todo")
    # The form's own Toggle button points at the rows, and sends nothing.
    toggle.click()
    result = form.find_element("css selector", "output[data-result-of='toggle']")
    app.wait_text(result, "Pick a row: each has its own Toggle button")
    focused = app.driver.switch_to.active_element
    assert focused.get_attribute("data-row-command") == "toggle" and focused.text == "Toggle"
    assert member(form, "remainingCount").text == "1"

    form = app.go("#/tabbedApp").form("tabbedApp")
    box = form.find_element("css selector", "[data-args-of='moveToTop']")
    label = box.find_element("xpath", "ancestor::label")
    assert label.text == "Move to top (a whole number)"
    assert box.tag_name == "input" and box.get_attribute("inputmode") == "numeric"
    # Its own fields are a select: no command is the one Enter runs.
    assert form.find_elements("css selector", "button.command.primary") == []


def test_the_arguments_box_and_the_daemons_message_fit(page: Page) -> None:
    form = page.go("#/element").form("element", state="needs-args")
    box = form.find_element("css selector", "input[data-args]")
    # The placeholder's text is no wider than the box's inside.
    room = page.driver.execute_script("""
        const box = arguments[0], style = getComputedStyle(box);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        return box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
          - context.measureText(box.placeholder).width;""", box)
    assert room >= 0, room
    message = form.find_element("css selector", ".args-message")
    assert message.text.endswith("known: H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca")
    assert page.driver.execute_script("const m = arguments[0]; return m.scrollWidth <= m.clientWidth "
                                      "&& m.scrollHeight <= m.clientHeight", message)
    # Enter in the box opens it (it is a form of its own).
    box.send_keys("symbol=He\n")
    form = page.form("element")
    page.wait_text(member(form, "name"), "Helium")


def test_the_dark_scheme(page: Page, scheme: Any) -> None:
    form = page.go("#/email").form("email")

    def colours() -> Any:
        return page.driver.execute_script(
            "const look = (e) => getComputedStyle(e).backgroundColor;"
            "return [look(document.body), look(arguments[0]), getComputedStyle(document.body).color]", form)

    light = colours()
    scheme("dark")
    dark = colours()
    assert light == ["rgb(246, 247, 249)", "rgb(255, 255, 255)", "rgb(29, 33, 37)"]
    assert dark == ["rgb(21, 24, 27)", "rgb(31, 35, 39)", "rgb(227, 230, 234)"]
    assert page.driver.execute_script("return getComputedStyle(arguments[0]).colorScheme",
                                      control(form, "email")) == "light dark"


def test_the_403_page_has_the_look_of_the_page_and_its_reason(driver: Any, page: Page, bridge: Bridge,
                                                              scheme: Any) -> None:
    page.focus()
    driver.get("%s/?token=wrong" % bridge.origin)
    heading = driver.find_element("css selector", "main h1")
    assert heading.text == "bindery-web refused this page"
    assert driver.find_element("css selector", "main .reason").text == (
        "Forbidden: wrong token: open the URL bindery-web printed")
    assert "It is the first line bindery-web printed when it started: http://127.0.0.1:%d/?token=…" % (
        bridge.port) in driver.find_element("css selector", "main").text
    # Its style sheet ran (the CSP allows it by hash): the page's background and card.
    look = "return [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector('main')).borderRadius]"
    assert driver.execute_script(look) == ["rgb(246, 247, 249)", "6px"]
    scheme("dark")
    assert driver.execute_script(look)[0] == "rgb(21, 24, 27)"
    scheme("light")
    if SHOTS:  # the whole small page, header included
        size = driver.get_window_size()
        driver.set_window_size(640, 420)
        screenshot(page, driver.find_element("tag name", "body"), "refused")
        driver.set_window_size(size["width"], size["height"])
    page.loaded = False  # the tab no longer shows the page
    # As a browser asks: HTML with every security header; as a script asks: the line of text.
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
    connection.request("GET", "/", headers={"Accept": "text/html"})
    response = connection.getresponse()
    body = response.read().decode()
    assert response.status == 403 and response.getheader("Content-Type") == "text/html; charset=utf-8"
    assert "Forbidden: no token" in body
    csp = response.getheader("Content-Security-Policy")
    assert csp.startswith("default-src 'none'; style-src 'sha256-") and "frame-ancestors 'none'" in csp
    # One script, by its hash: it sends a browser that holds the token back to the page.
    assert "script-src 'sha256-" in csp and "unsafe" not in csp
    for name, value in (("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
                        ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store")):
        assert response.getheader(name) == value, name
    connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    assert (response.status, response.read()) == (403, b"Forbidden: no token: open the URL bindery-web printed\n")
    connection.close()
