"""The page when things end: a daemon that dies (the page says so, and a reconnect brings the form
back), a bridge that restarts (the page reconnects with backoff and reopens its forms, keyed ones
by their key, with what they held), a bridge that no longer knows the page's token."""
from __future__ import annotations

import os
import shlex
import signal
import socket
from typing import Any, Callable, Dict

from conftest import Bridge, Page, control, member, wait_for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def status(page: Page) -> Any:
    return page.driver.find_element("id", "status")


def test_a_dead_daemon_is_said_and_the_page_reconnects_by_itself_with_the_form(
        driver: Any, tabs: Dict[str, Page], start_bridge: Callable[..., Bridge], binderyd: str, tmp_path: Any) -> None:
    pids = tmp_path / "pids"
    # Each page connection's daemon writes its pid first (exec keeps it).
    bridge = start_bridge("sh -c %s" % shlex.quote("echo $$ >> %s; exec %s" % (shlex.quote(str(pids)), shlex.quote(binderyd))))
    page = Page(driver, tabs["other"].handle, bridge).load("#/email")
    form = page.form("email")
    control(form, "email").send_keys("ada@example.com")
    page.wait_text(member(form, "isValid"), "Yes")
    first = int(pids.read_text().split()[-1])
    # Every status the page shows, with its form as it was then (the page reconnects by itself).
    page.driver.execute_script("""
        window.seen = [];
        const status = document.getElementById('status');
        new MutationObserver(() => {
          const form = document.querySelector("section.form[data-type='email']");
          const input = form && form.querySelector("[name='email']");
          window.seen.push({state: status.dataset.state, text: status.textContent,
                            form: form && form.dataset.state, formText: form && form.textContent,
                            enabled: !!input && !input.matches(':disabled'),
                            history: form ? [...form.querySelectorAll("button[data-action='undo'], button[data-action='redo']")]
                              .map((button) => !button.disabled) : []});
        }).observe(status, {attributes: true, childList: true, subtree: true, characterData: true});""")
    os.kill(first, signal.SIGKILL)
    page.wait_until(lambda d: any(s["state"] == "dead" for s in d.execute_script("return window.seen")),
                    message="the page did not notice")
    page.wait_live(timeout=15)  # by itself: no click
    [dead] = [s for s in page.driver.execute_script("return window.seen") if s["state"] == "dead"][:1]
    assert "The daemon stopped (signal 9)" in dead["text"] and "reconnecting in 1 s" in dead["text"], dead
    assert dead["form"] == "dead" and "no longer live" in dead["formText"] and not dead["enabled"], dead
    assert dead["history"] == [False, False], dead  # no session to undo in
    form = page.form("email")
    history = form.find_elements("css selector", "button[data-action='undo'], button[data-action='redo']")
    assert [button.is_enabled() for button in history] == [True, True]
    assert control(form, "email").get_attribute("value") == "ada@example.com"
    assert member(form, "isValid").text == "Yes"
    second = int(pids.read_text().split()[-1])
    assert second != first
    control(form, "email").send_keys("!")
    page.wait_text(member(form, "isValid"), "No")


def test_a_daemon_that_cannot_start_is_said(driver: Any, tabs: Dict[str, Page],
                                            start_bridge: Callable[..., Bridge], tmp_path: Any) -> None:
    bridge = start_bridge(shlex.quote(str(tmp_path / "no-such-binderyd")))
    page = Page(driver, tabs["other"].handle, bridge)
    page.focus()
    driver.get(bridge.url)
    page.wait_until(lambda _: status(page).get_attribute("data-state") == "dead")
    assert "could not start" in status(page).text and "no-such-binderyd" in status(page).text


def test_a_restarted_bridge_is_reconnected_and_the_forms_recovered(
        driver: Any, tabs: Dict[str, Page], start_bridge: Callable[..., Bridge]) -> None:
    port = free_port()
    token = "restart-" + os.urandom(8).hex()
    first = start_bridge(port=port, token=token)
    assert first.url == "http://127.0.0.1:%d/?token=%s" % (port, token)
    page = Page(driver, tabs["other"].handle, first).load("#/survey/form-1+email")
    survey = page.form("survey")
    assert survey.get_attribute("data-key") == "form-1"
    control(survey, "name").send_keys("Ada")
    email = page.form("email")
    control(email, "email").send_keys("ada@example.com")
    page.wait_text(member(email, "isValid"), "Yes")
    page.wait_text(member(survey, "prettyString"), lambda text: text.startswith("Name: Ada\n"))

    first.stop()
    page.wait_until(lambda _: status(page).get_attribute("data-state") == "offline", message="no offline status")
    assert "reconnecting" in status(page).text
    # Typed while the bridge is away: kept, and sent once the form is back.
    control(survey, "companyName").send_keys("Engines")

    second = start_bridge(port=port, token=token)
    page.bridge = second
    page.wait_live(timeout=15)
    survey = page.form("survey")
    email = page.form("email")
    assert control(survey, "name").get_attribute("value") == "Ada"
    page.wait_text(member(survey, "prettyString"),
                   lambda text: text.startswith("Name: Ada\nCompany: Engines\n"))
    assert control(email, "email").get_attribute("value") == "ada@example.com"
    assert member(email, "isValid").text == "Yes"
    control(email, "email").send_keys("!")
    page.wait_text(member(email, "isValid"), "No")

    # A bridge with another token refuses the page, which says so instead of retrying.
    second.stop()
    third = start_bridge(port=port, token="another-token")
    page.bridge = third
    page.wait_until(lambda _: status(page).get_attribute("data-state") == "refused", timeout=15)
    assert "Open the URL it printed" in status(page).text
    third.stop()
