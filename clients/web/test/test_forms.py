"""Every seed type's form in a real browser (headless Chromium), against a plain binderyd on the
real clock, by typing and clicking: the pinned hooks (`name`, `data-member`) find everything."""
from __future__ import annotations

import re
import time
from typing import Any

from conftest import Page, control, member, wait_for


def field_value(form: Any, name: str) -> str:
    return control(form, name).get_attribute("value")


def test_the_front_page_lists_every_type_and_opens_one(page: Page) -> None:
    page.go("#/")
    links = page.wait_until(lambda d: d.find_elements("css selector", "nav#types a[data-type]"))
    assert [link.text for link in links] == ["email", "survey", "login", "package", "element",
                                             "movieList", "addMovie", "bottomBar"]
    links[0].click()
    form = page.form("email")
    assert control(form, "email").get_attribute("type") == "text"
    assert member(form, "validationMessage").text == "Email is invalid"


def test_email_is_validated_while_typing(page: Page) -> None:
    form = page.go("#/email").form("email")
    email = control(form, "email")
    email.send_keys("ada@example")
    page.wait_text(member(form, "validationMessage"), "Email is invalid")
    email.send_keys(".com")
    page.wait_text(member(form, "isValid"), "Yes")
    assert member(form, "validationMessage").text == "Email is valid"
    # Still typing: the field kept focus and every keystroke.
    assert page.driver.switch_to.active_element == email
    assert field_value(form, "email") == "ada@example.com"
    email.send_keys("!")
    page.wait_text(member(form, "isValid"), "No")


def test_fast_typing_loses_no_keystroke(page: Page) -> None:
    form = page.go("#/email").form("email")
    email = control(form, "email")
    text = "grace.hopper+navy@example.org"
    for chunk in (text[:9], text[9:18], text[18:]):
        email.send_keys(chunk)
        time.sleep(0.16)  # about the debounce: writes go out while the next keys come
    page.wait_text(member(form, "isValid"), "Yes")
    time.sleep(0.3)
    assert field_value(form, "email") == text
    state = page.driver.execute_script(
        "return window.binderyWeb.forms[0].model.state.email")
    assert state == text


def test_login_is_busy_for_its_second_and_a_half_then_shows_the_user(page: Page) -> None:
    form = page.go("#/login").form("login")
    button = control(form, "login")
    assert not button.is_enabled()  # login.enabled is false with no names
    control(form, "firstName").send_keys("Ada")
    control(form, "lastName").send_keys("Lovelace")
    page.wait_until(lambda _: button.is_enabled(), message="Login never enabled")
    button.click()
    started = time.monotonic()
    page.wait_until(lambda _: button.get_attribute("aria-busy") == "true", message="never busy")
    assert not button.is_enabled()
    page.wait_text(member(form, "userLoadingInProgress"), "Yes")
    result = form.find_element("css selector", "[data-result-of='login']")
    page.wait_text(result, lambda text: "authToken: 123adasdsadasdasdasdd" in text, timeout=8)
    elapsed = time.monotonic() - started
    assert 1.3 < elapsed < 8, elapsed
    assert result.text == "→ firstName: Ada, lastName: Lovelace, authToken: 123adasdsadasdasdasdd"
    assert button.get_attribute("aria-busy") == "false" and button.is_enabled()
    user = member(form, "loggedInUser")
    assert "Lovelace" in user.text and "123adasdsadasdasdasdd" in user.text
    assert member(form, "userLoadingInProgress").text == "No"


def test_a_failed_login_shows_its_error_beside_the_button(page: Page) -> None:
    form = page.go("#/login").form("login")
    control(form, "firstName").send_keys("Mallory")
    control(form, "lastName").send_keys("Smith")
    button = control(form, "login")
    page.wait_until(lambda _: button.is_enabled())
    button.click()
    result = form.find_element("css selector", "[data-result-of='login']")
    page.wait_text(result, lambda text: "rejected" in text, timeout=5)
    assert "error" in result.get_attribute("class")
    assert "Mallory" in member(form, "errorMessage").text


def test_a_running_login_can_be_cancelled(page: Page) -> None:
    form = page.go("#/login").form("login")
    control(form, "firstName").send_keys("Ada")
    control(form, "lastName").send_keys("Lovelace")
    button = control(form, "login")
    page.wait_until(lambda _: button.is_enabled())
    button.click()
    cancel = form.find_element("css selector", "[data-cancel-of='login']")
    page.wait_until(lambda _: cancel.is_displayed(), message="no Cancel while running")
    cancel.click()
    result = form.find_element("css selector", "[data-result-of='login']")
    page.wait_text(result, lambda text: "cancelled" in text.lower())
    page.wait_until(lambda _: button.is_enabled() and button.get_attribute("aria-busy") == "false")
    assert member(form, "loggedInUser").text == ""


def test_survey_fields_of_every_kind(page: Page) -> None:
    form = page.go("#/survey").form("survey")
    # A number is text the daemon reads; the keyboard offers digits.
    assert control(form, "yearsOfExperience").get_attribute("inputmode") == "decimal"
    assert control(form, "isCurrentEmployer").get_attribute("type") == "checkbox"
    control(form, "name").send_keys("Ada")
    control(form, "companyName").send_keys("Analytical Engines")
    control(form, "yearsOfExperience").send_keys("3")
    control(form, "isCurrentEmployer").click()
    control(form, "approxSalary").send_keys("45000")
    control(form, "comments").send_keys("none")
    pretty = member(form, "prettyString")
    expected = ("Name: Ada\nCompany: Analytical Engines\nExperience: 3.0 yrs\nCurrent Employer?: YES\n"
                "approx Salary: 45.0k\nComments: none")
    page.wait_text(pretty, expected)
    assert member(form, "experienceString").text == "3.0 yrs"
    assert member(form, "salaryString").text == "45.0k"
    # An emptied optional field is null again.
    name = control(form, "name")
    name.send_keys("\b\b\b")
    page.wait_text(pretty, lambda text: text.startswith("Name: --\n"))
    # Not a number: the daemon's words beside the field, and nothing is written.
    years = control(form, "yearsOfExperience")
    years.send_keys("x")
    error = form.find_element("css selector", "[data-error-of='yearsOfExperience']")
    page.wait_text(error, lambda text: text.startswith("expected a number"))
    assert member(form, "experienceString").text == "3.0 yrs"
    years.send_keys("\b")
    page.wait_text(error, "")


def test_package_items_arrive_as_splices_applied_in_place(page: Page) -> None:
    form = page.go("#/package").form("package")
    first = control(form, "recipientFirstName")
    first.send_keys("\b\b\bGrace")
    summary = member(form, "summary")
    page.wait_text(summary, lambda text: text.startswith("Recipient: Grace Lovelace"))
    control(form, "street").send_keys(" 2")
    page.wait_text(summary, lambda text: "Square 2" in text)
    contents = member(form, "contents")
    assert contents.get_attribute("data-length") == "0"
    add = control(form, "addRandomItem")
    add.click()
    page.wait_until(lambda _: len(contents.find_elements("css selector", "tbody tr")) == 1)
    row = contents.find_element("css selector", "tbody tr")
    add.click()
    page.wait_until(lambda _: len(contents.find_elements("css selector", "tbody tr")) == 2)
    # The first row is the same element: the second item was inserted, the table not redrawn.
    assert row.find_element("css selector", "td[data-name='title']").text == "Light bulb"
    weights = [int(cell.text) for cell in contents.find_elements("css selector", "td[data-name='weight']")]
    assert all(200 <= weight <= 300 for weight in weights), weights
    page.wait_text(summary, lambda text: "Contents: Light bulb %d, Light bulb %d" % tuple(weights) in text)


def test_element_asks_for_its_arguments(page: Page) -> None:
    form = page.go("#/element").form("element", state="needs-args")
    message = form.find_element("css selector", ".args-message")
    assert "args.symbol is missing" in message.text
    arguments = form.find_element("css selector", "input[data-args]")
    arguments.send_keys('{"symbol": "He"}\n')
    form = page.form("element")
    assert member(form, "name").text == "Helium"
    assert member(form, "atomicNumber").text == "2"
    assert member(form, "numberDescription").text == "Number: 2"
    assert page.driver.execute_script("return location.hash") == "#/element?symbol=He"
    # The address carries the arguments: name=value in the hash opens it directly.
    form = page.go("#/element?symbol=ne").form("element")
    assert member(form, "name").text == "Neon"
    # A wrong symbol: the daemon's message, and a second try.
    form = page.go("#/element?symbol=Xx").form("element", state="needs-args")
    assert 'unknown element symbol "Xx"' in form.find_element("css selector", ".args-message").text
    arguments = form.find_element("css selector", "input[data-args]")
    arguments.clear()
    arguments.send_keys("symbol=Li\n")
    form = page.form("element")
    assert member(form, "name").text == "Lithium"


def test_a_saved_movie_appears_in_the_movie_list_beside_it(page: Page) -> None:
    """addMovie and movieList on one daemon connection, two forms of one page (`+` in the route).
    The same across two tabs needs the shared daemon: test_shared_daemon.py."""
    page.go("#/movieList+addMovie")
    movies = member(page.form("movieList"), "movies")
    before = len(movies.find_elements("css selector", "tbody tr"))
    add = page.form("addMovie")
    save = control(add, "save")
    assert not save.is_enabled()
    control(add, "title").send_keys("Alien")
    page.wait_until(lambda _: save.is_enabled())
    from selenium.webdriver.support.select import Select
    Select(control(add, "rating")).select_by_value("good")
    save.click()
    result = add.find_element("css selector", "[data-result-of='save']")
    page.wait_text(result, lambda text: "fullTitle: Alien" in text and "givenRating: good" in text)
    page.wait_until(lambda _: len(movies.find_elements("css selector", "tbody tr")) == before + 1)
    last = movies.find_elements("css selector", "tbody tr")[-1]
    assert last.find_element("css selector", "td[data-name='fullTitle']").text == "Alien"
    assert last.find_element("css selector", "td[data-name='givenRating']").text == "good"


def test_the_bottom_bar_ticks_with_no_input(page: Page) -> None:
    form = page.go("#/bottomBar").form("bottomBar")
    text = member(form, "text")
    first = page.wait_text(text, lambda value: re.fullmatch(r"Random number: \d{1,2}", value) is not None, timeout=5)
    revision = form.get_attribute("data-revision")
    page.wait_until(lambda _: form.get_attribute("data-revision") != revision, timeout=5,
                    message="the bar did not tick again")
    assert re.fullmatch(r"Random number: \d{1,2}", text.text), (first, text.text)


def test_undo_and_redo_go_to_the_daemon(page: Page) -> None:
    form = page.go("#/email").form("email")
    email = control(form, "email")
    email.send_keys("ada@example.com")
    page.wait_text(member(form, "isValid"), "Yes")
    undo = form.find_element("css selector", "button[data-action='undo']")
    redo = form.find_element("css selector", "button[data-action='redo']")
    undo.click()
    page.wait_until(lambda _: field_value(form, "email") == "", message="undo did not clear the field")
    page.wait_text(member(form, "isValid"), "No")
    redo.click()
    page.wait_until(lambda _: field_value(form, "email") == "ada@example.com")
    page.wait_text(member(form, "isValid"), "Yes")
    undo.click()
    page.wait_until(lambda _: field_value(form, "email") == "")
    undo.click()
    page.wait_text(form.find_element("css selector", ".history-note"), "Nothing to undo")


def test_a_keyed_route_opens_the_keyed_session(page: Page) -> None:
    page.go("#/survey/team%20form+survey/team%20form")
    one = page.form("survey", index=0)
    two = page.form("survey", index=1)
    assert one.get_attribute("data-key") == "team form"
    assert one.get_attribute("data-session") == two.get_attribute("data-session")
    control(one, "name").send_keys("Ada")
    page.wait_until(lambda _: field_value(two, "name") == "Ada", message="the second view of the key")
    page.wait_text(member(two, "prettyString"), lambda text: text.startswith("Name: Ada\n"))


def test_an_unknown_type_is_named(page: Page) -> None:
    page.go("#/emial")
    error = page.wait_until(lambda d: d.find_element("css selector", "main p.error"))
    assert 'Unknown view model type "emial"' in error.text and "email" in error.text
