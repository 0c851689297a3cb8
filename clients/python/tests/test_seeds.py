"""Every seed view model through the sync client, against the real daemon."""
from __future__ import annotations

from typing import Any, List

import pytest

from bindery import Changes, Client, CommandFailed, OpenFailed, ReadOnlyField, WrongValueType
from helpers import background

USER = {"firstName": "Ada", "lastName": "Lovelace", "authToken": "123adasdsadasdasdasdd"}


def test_email_validates_as_you_type(client: Client) -> None:
    form = client.open("email")
    assert form.state == {"email": "", "isValid": False, "validationMessage": "Email is invalid"}
    assert form.fields == ["email"] and form.outputs == ["isValid", "validationMessage"]
    assert form.set("email", "ada@") == 0
    assert form.state["email"] == "ada@"  # stored by the client: the daemon does not echo it
    assert form.set("email", "a@b.co") == 1
    assert form.state == {"email": "a@b.co", "isValid": True, "validationMessage": "Email is valid"}
    assert form.revision == 1 and form.get("isValid") is True and form["email"] == "a@b.co"
    form.set("email", "a@b.commm")
    assert not form.state["isValid"] and form.revision == 2
    assert form.refresh() == {"email": "a@b.commm", "isValid": False, "validationMessage": "Email is invalid"}


def test_survey_two_way_bindings_and_derived_strings(client: Client) -> None:
    survey = client.open("survey")
    assert survey.state["name"] is None and survey.state["experienceString"] == "--"
    survey.set("name", "Ada Lovelace")
    survey.set("companyName", "Analytical Engines")
    survey.set("yearsOfExperience", 3)
    survey.set("isCurrentEmployer", True)
    survey.set("approxSalary", 45000)
    assert survey.state["experienceString"] == "3.0 yrs"
    assert survey.state["salaryString"] == "45.0k"
    assert survey.state["prettyString"].splitlines() == [
        "Name: Ada Lovelace", "Company: Analytical Engines", "Experience: 3.0 yrs",
        "Current Employer?: YES", "approx Salary: 45.0k", "Comments: --"]
    survey.set("approxSalary", None)
    assert survey.state["salaryString"] == "--" and survey.state["approxSalary"] is None
    assert survey.refresh()["yearsOfExperience"] == 3


def test_login_on_the_virtual_clock(client: Client) -> None:
    login = client.open("login")
    assert login.commands == ["login"] and login.state["login.enabled"] is False
    login.set("firstName", "Ada")
    login.set("lastName", "Lovelace")
    assert login.state["loginInputValid"] and login.state["login.enabled"]
    call = background(login.invoke, "login", timeout=20)
    login.wait_until(lambda s: s["login.running"], timeout=10)
    assert login.state["userLoadingInProgress"] and not login.state["login.enabled"]
    assert client.advance_clock(1000) == 1000
    assert not call.done(), "answered before the virtual clock reached 1.5 s"
    assert client.advance_clock(500) == 1500
    assert call.result(timeout=10) == USER
    assert login.state["loggedInUser"] == USER and login.state["login.running"] is False


def test_login_failure_is_command_failed_with_detail(client: Client) -> None:
    login = client.open("login")
    login.set("firstName", "Mallory")
    login.set("lastName", "Lovelace")
    call = background(login.invoke, "login")
    login.wait_until(lambda s: s["login.running"], timeout=10)
    client.advance_clock(1500)
    with pytest.raises(CommandFailed) as caught:
        call.result(timeout=10)
    assert caught.value.data == {"session": login.id, "command": "login", "detail": {"reason": "rejected"}}
    assert "The user API rejected Mallory Lovelace" in caught.value.message
    assert login.state["errorMessage"] == "The user API rejected Mallory Lovelace"
    assert login.state["loggedInUser"] is None


def test_login_on_the_real_clock(live_client: Client) -> None:
    login = live_client.open("login")
    login.set("firstName", "Ada")
    login.set("lastName", "Lovelace")
    assert login.invoke("login", timeout=15) == USER  # the fake API answers after ~1.5 s
    assert login.state["loggedInUser"] == USER and not login.state["userLoadingInProgress"]


def test_package_nested_fields_and_random_items(daemon_path: str) -> None:
    with Client(daemon_path, ["--deterministic", "--seed", "1"], timeout=20) as client:
        package = client.open("package")
        assert package.state["contents"] == [] and package.state["addRandomItem.enabled"] is True
        package.set("recipientFirstName", "Grace")
        package.set("recipientLastName", "Hopper")
        package.set("street", "37 Christie St")
        assert package.state["summary"].splitlines()[:2] == ["Recipient: Grace Hopper",
                                                             "Postal address: 37 Christie St"]
        assert package.invoke("addRandomItem") is None
        package.invoke("addRandomItem")
        assert package.state["contents"] == [{"title": "Light bulb", "weight": 257},
                                             {"title": "Light bulb", "weight": 275}]
        assert package.state["summary"].endswith("Contents: Light bulb 257, Light bulb 275")
        with pytest.raises(ReadOnlyField):
            package.set("summary", "x")
        with pytest.raises(WrongValueType) as caught:
            package.set("street", 37)
        assert caught.value.data["expected"] == "string"
        assert package.state["street"] == "37 Christie St"  # a refused write is not stored


def test_element_cards_and_an_unknown_symbol(client: Client) -> None:
    hydrogen = client.open("element", {"symbol": "H"})
    assert hydrogen.state["name"] == "Hydrogen" and hydrogen.state["atomicWeight"] == 1.008
    calcium = client.open("element", args={"symbol": "ca"})
    assert calcium.state["symbol"] == "Ca" and calcium.state["numberDescription"] == "Number: 20"
    with pytest.raises(OpenFailed) as caught:
        client.open("element", {"symbol": "Xx"})
    assert 'unknown element symbol "Xx"' in caught.value.message
    assert caught.value.data["symbol"] == "Xx" and "Ne" in caught.value.data["known"]
    with pytest.raises(OpenFailed) as caught:
        client.open("element")
    assert "args.symbol is missing" in caught.value.message and "He" in caught.value.data["known"]
    with pytest.raises(ReadOnlyField):
        hydrogen.set("name", "Deuterium")


def test_a_saved_movie_reaches_both_lists_before_save_returns(client: Client) -> None:
    full = client.open("movieList")
    movies_only = client.open("movieList", observe=["movies"])
    assert movies_only.state == {"movies": []}
    seen: List[Changes] = []
    full.on_change(seen.append)
    movies_only.on_change(seen.append)
    add = client.open("addMovie")
    with pytest.raises(WrongValueType):
        add.set("rating", "great")
    add.set("title", "Alien")
    add.set("rating", "excellent")
    saved = add.invoke("save")
    assert saved == {"id": "1", "fullTitle": "Alien", "givenRating": "excellent"}
    assert full.state["movies"] == [saved] and movies_only.state["movies"] == [saved]
    assert client.drain_callbacks(10)
    assert [c.session for c in seen] == [full.id, movies_only.id]  # in order of session id
    assert seen[0].cause == seen[1].cause  # both caused by the save
    full.set("isPresentingAddMovie", True)
    add.close()
    second = client.open("addMovie")
    second.set("title", "Heat")
    second.invoke("save")
    assert [m["fullTitle"] for m in movies_only.state["movies"]] == ["Alien", "Heat"]
    assert client.open("movieList").state["movies"] == full.state["movies"]


def test_bottom_bar_ticks_on_the_virtual_clock(daemon_path: str) -> None:
    with Client(daemon_path, ["--deterministic", "--seed", "7"], timeout=20) as client:
        bar = client.open("bottomBar", key="bar")
        ticks: List[Any] = []
        bar.on_change(lambda changes: ticks.append(changes["text"]))
        client.advance_clock(1999)
        assert bar.state["text"] == ""
        client.advance_clock(1)
        assert bar.state["text"] == "Random number: 38"
        client.advance_clock(4000)
        assert bar.state["text"] == "Random number: 90" and bar.revision == 3
        again = client.open("bottomBar", key="bar")
        assert again is bar  # the same session, reopened by its key
        client.drain_callbacks(10)
        assert ticks == ["Random number: 38", "Random number: 1", "Random number: 90"]
        bar.close()
        assert bar.closed


def test_bottom_bar_ticks_on_the_real_clock(live_client: Client) -> None:
    bar = live_client.open("bottomBar")
    assert bar.state["text"] == ""
    bar.wait_until(lambda s: s["text"].startswith("Random number: "), timeout=8)  # one tick: ~2 s
    assert bar.revision >= 1


def test_session_keys_share_a_session(client: Client) -> None:
    form = client.open("email", key="form")
    form.set("email", "ada@example.com")
    again = client.open("email", key="form")
    assert again is form and again.state["isValid"] and again.revision == 1
    with pytest.raises(OpenFailed) as caught:
        client.open("survey", key="form")
    assert caught.value.data == {"key": "form", "type": "email"}
    form.close()
    fresh = client.open("email", key="form")
    assert fresh is not form and fresh.id != form.id and fresh.state["email"] == ""
