"""What each view model type of binderyd and appd is driven through, so that the values a schema
must describe are really sent: a field set, a cheap command run, optionals given a value, enums
with payloads moved to other cases, rows and children made. One function per type, by daemon;
``collect`` runs them all and returns everything the daemon sent (wire_driver.Seen).
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Dict, List, Tuple

from wire_driver import Seen, Wire

Scenario = Callable[[Wire], None]


# binderyd: the seeds.

def email(w: Wire) -> None:
    s = w.open("email")
    w.set(s, "email", "ada@example.com")


def survey(w: Wire) -> None:
    s = w.open("survey")
    for field, value in [("name", "Ada"), ("companyName", "Analytical Engines"), ("yearsOfExperience", 3),
                         ("isCurrentEmployer", True), ("approxSalary", 45000), ("comments", "none")]:
        w.set(s, field, value)
    w.read_state(s)  # the values just set, as the daemon sends them
    w.set(s, "comments", None)


def login(w: Wire) -> None:
    s = w.open("login")
    w.set(s, "firstName", "Ada")
    w.set(s, "lastName", "Lovelace")
    w.invoke(s, "login", advance=1500)  # the fake API answers after 1.5 s: loggedInUser, a result
    w.set(s, "firstName", "Mallory")
    w.invoke(s, "login", advance=1500, fails=True)  # refused: errorMessage


def package(w: Wire) -> None:
    s = w.open("package")
    w.set(s, "recipientFirstName", "Grace")
    w.set(s, "street", "37 Christie St")
    w.invoke(s, "addRandomItem")


def element(w: Wire) -> None:
    w.open("element", {"symbol": "He"})


def movie_list(w: Wire) -> None:
    s = w.open("movieList")
    w.set(s, "isPresentingAddMovie", True)


def add_movie(w: Wire) -> None:
    movies = w.open("movieList")
    s = w.open("addMovie")
    w.set(s, "title", "Alien")
    w.set(s, "rating", "excellent")
    w.invoke(s, "save")
    w.close_session(movies)


def bottom_bar(w: Wire) -> None:
    w.open("bottomBar")
    w.advance(4000)


# appd: Examples/AppViewModels.

def todo_list(w: Wire) -> None:
    s = w.open("todoList")
    w.set(s, "newTitle", "Buy milk")
    w.set(s, "newDue", "2026-01-01T09:30:00Z")
    w.invoke(s, "add")
    w.set(s, "newTitle", "Call Ada")
    w.set(s, "newDue", None)
    w.invoke(s, "add")  # a row without `due`: an optional member left out
    w.invoke(s, "toggle", w.states[s]["items"][0])
    w.set(s, "filter", "done")
    w.invoke(s, "clearCompleted")


def settings(w: Wire) -> None:
    s = w.open("settings")
    w.set(s, "distanceUnit", "miles")
    w.set(s, "unitStyle", "long")
    w.set(s, "dailyGoal", 7.5)
    w.invoke(s, "save")  # lastSaved: a date
    w.invoke(s, "resetToDefaults")


def search(w: Wire) -> None:
    s = w.open("search")
    w.set(s, "query", "the")
    w.advance(600)  # the debounce, then the fake service: loading, loaded([Film])
    w.set(s, "query", "error")
    w.advance(600)  # failed(String)


def order(w: Wire) -> None:
    s = w.open("order")
    w.invoke(s, "placeOrder")  # empty: an error
    catalog = w.states[s]["catalog"]
    w.invoke(s, "add", catalog[1])
    w.invoke(s, "add", catalog[1])
    w.set(s, "couponCode", "SAVE10")
    w.invoke(s, "remove", w.states[s]["lines"][0])
    w.invoke(s, "add", catalog[3])
    w.invoke(s, "add", catalog[3])
    w.invoke(s, "placeOrder")  # declined: over the card's limit
    w.invoke(s, "remove", w.states[s]["lines"][0])
    w.invoke(s, "add", catalog[0])
    w.invoke(s, "placeOrder")  # placed: an order id


def favorites(w: Wire) -> None:
    s = w.open("favorites")
    w.invoke(s, "validate")  # errors: a dictionary
    w.invoke(s, "toggleFavorite", w.states[s]["shown"][1])
    w.set(s, "showOnlyFavorites", True)
    w.set(s, "favoriteIDs", [3, 1])
    w.invoke(s, "validate")


def stopwatch(w: Wire) -> None:
    s = w.open("stopwatch")
    w.invoke(s, "start")
    w.invoke(s, "reset")


def import_(w: Wire) -> None:
    s = w.open("import")
    w.set(s, "total", 5)
    w.invoke(s, "importAll")
    w.invoke(s, "importInParallel", 2)
    w.set(s, "total", 0)


def value_catalogue(w: Wire) -> None:
    s = w.open("valueCatalogue")
    for field, value in [("date", "2026-01-01T09:30:00.125+01:00"), ("id", "0F8FAD5B-D9CB-469F-A165-70867728950F"),
                         ("link", "https://example.com/b"), ("price", 12.5), ("bytes", "AQID"),
                         ("selection", [9, 3]), ("tags", ["z", "y"]), ("scores", {"c": 3}), ("priority", "high"),
                         ("shape", {"case": "rectangle", "_0": 2, "_1": 3}),
                         ("labels", [{"name": "work", "colour": "blue"}, {"name": "home", "colour": "green"}]),
                         ("context", {"3": ["a", "b"]}), ("bigCount", -5), ("ratio", 0.25), ("timeout", 2.5)]:
        w.set(s, field, value)
    w.read_state(s)  # the values just set, as the daemon sends them
    w.invoke(s, "reset")


def rare_values(w: Wire) -> None:
    s = w.open("rareValues")
    for field, value in [("style", 3), ("span", [2, 5]),
                         ("distance", {"value": 1.5, "unit": {"symbol": "m", "converter": {"coefficient": 1.0, "constant": 0.0}}})]:
        w.set(s, field, value)
    w.read_state(s)
    w.invoke(s, "fail")


def tabbed_app(w: Wire) -> None:
    s = w.open("tabbedApp")
    w.set(s, "selectedTab", "profile")
    counters = w.child(s, "countersTab")
    w.invoke(counters, "add")
    w.invoke(counters, "add")
    row = w.states[counters]["rows"][1]["session"]
    w.invoke(row, "increment")
    w.set(row, "title", "Cups")
    w.invoke(counters, "moveToTop", 2)
    w.invoke(s, "showDetail", 2)  # detail: a child that comes
    w.invoke(s, "hideDetail")  # ... and goes
    w.set(w.child(s, "profileTab"), "name", "Ada")
    clock = w.child(s, "clockTab")
    w.invoke(clock, "start")
    w.advance(2500)
    w.invoke(clock, "stop")
    w.invoke(counters, "remove", 1)


def quote_feed(w: Wire) -> None:
    s = w.open("quoteFeed")
    w.advance(2000)
    w.invoke(s, "refresh")


SCENARIOS: Dict[str, Dict[str, Scenario]] = {
    "binderyd": {"email": email, "survey": survey, "login": login, "package": package, "element": element,
                 "movieList": movie_list, "addMovie": add_movie, "bottomBar": bottom_bar},
    "appd": {"todoList": todo_list, "settings": settings, "search": search, "order": order, "favorites": favorites,
             "stopwatch": stopwatch, "import": import_, "valueCatalogue": value_catalogue, "rareValues": rare_values,
             "tabbedApp": tabbed_app,
             "quoteFeed": quote_feed},
}


@functools.lru_cache(maxsize=None)
def collect(daemon: str, path: str) -> Tuple[List[Dict[str, Any]], List[Seen]]:
    """Runs every scenario of ``daemon`` (one fresh daemon each), without and with the splices
    capability; returns the daemon's schemas (viewModels/describe) and every value it sent. Once
    per daemon and test run (cached): the tests only read them."""
    seen: List[Seen] = []
    schemas: List[Dict[str, Any]] = []
    for (name, scenario), splices in itertools.product(SCENARIOS[daemon].items(), (False, True)):
        wire = Wire(daemon, path, splices)
        try:
            if not schemas:
                schemas = wire.request("viewModels/describe", {})["viewModels"]
            scenario(wire)
            wire.read_states()
        finally:
            wire.close()
        seen += wire.seen
    return schemas, seen
