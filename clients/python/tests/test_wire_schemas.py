"""Every schema describes exactly what its daemon sends (issue 33: "a schema must describe exactly
what goes on the wire").

Every view model type of binderyd and appd is opened and driven a little (wire_scenarios.py), with
and without list splices; every state, change set, splice and command result the daemon sent, read
off the wire as sent (wire_driver.py),
is checked against its member's type object from viewModels/describe by a validator written for
this test (wire_schema.py): members, required members, elements, dictionary values, payloads,
enum and union cases, string formats, child view models. Schemas doctored to list less than is sent
(wire_doctored.py) must fail the same check, so a pass means something.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import pytest

import wire_doctored
from wire_coverage import unreached
from wire_driver import Seen
from wire_scenarios import SCENARIOS, collect
from wire_schema import seen_problems, view_models

DAEMONS = sorted(SCENARIOS)


@pytest.fixture(params=DAEMONS)
def daemon(request: pytest.FixtureRequest, daemon_path: str, appd_path: str) -> str:
    return str(request.param)


def sent(daemon: str, daemon_path: str, appd_path: str) -> Tuple[List[Dict[str, Any]], List[Seen]]:
    return collect(daemon, daemon_path if daemon == "binderyd" else appd_path)


def all_problems(schemas: List[Dict[str, Any]], seen: List[Seen]) -> List[str]:
    described = view_models(schemas)
    return [problem for value in seen for problem in seen_problems(described, value)]


def test_every_type_is_driven(daemon: str, daemon_path: str, appd_path: str) -> None:
    schemas, seen = sent(daemon, daemon_path, appd_path)
    missing = sorted({s["type"] for s in schemas} - set(SCENARIOS[daemon]))
    assert missing == [], "%s serves types no scenario drives: add them to wire_scenarios.py" % daemon
    assert sorted(SCENARIOS[daemon]) == sorted(s["type"] for s in schemas), "a scenario for a type not served"
    driven = {value.type for value in seen if value.where != "state"}
    assert sorted(view_models(schemas)) == sorted({value.type for value in seen}), "a type never sent its state"
    assert [s["type"] for s in schemas if s["type"] not in driven and s["type"] != "element"] == [], \
        "a type that sent nothing but its state (element only shows an element)"


def test_every_value_sent_is_what_its_schema_says(daemon: str, daemon_path: str, appd_path: str) -> None:
    schemas, seen = sent(daemon, daemon_path, appd_path)
    assert all_problems(schemas, seen) == [], "\n".join(all_problems(schemas, seen))


#: What no scenario can make the daemon send: appd's Address is not Decodable (so a client cannot
#: set it) and the view model never gives it a floor.
UNREACHABLE = {"binderyd": set(), "appd": {"valueCatalogue.address.floor!", "valueCatalogue.address.floor?"}}


def test_the_scenarios_reach_every_case_optional_and_nullable(daemon: str, daemon_path: str, appd_path: str) -> None:
    """Every union case sent, every nullable value sent non-null, every optional member sent present."""
    schemas, seen = sent(daemon, daemon_path, appd_path)
    assert unreached(view_models(schemas), seen) == UNREACHABLE[daemon]


# The same check on schemas doctored to describe something else than is sent.

DOCTORINGS: Dict[str, List[Tuple[str, Callable[[Dict[str, Any]], bool], str]]] = {
    "binderyd": [("a struct missing a member", wire_doctored.drop_member("User", "authToken"),
                  ".authToken: sent, but not among the schema's members ['firstName', 'lastName']"),
                 ("a view model missing an output", wire_doctored.drop_field("email", "isValid"),
                  "isValid: sent, but the schema has no such member"),
                 ("an enum missing a case", wire_doctored.drop_case("excellent"),
                  '"excellent" is not one of the schema\'s cases')],
    "appd": [("a struct missing a member", wire_doctored.drop_member("Address", "city"),
              "$.address.city: sent, but not among the schema's members ['street', 'floor']"),
             ("a child view model missing a field", wire_doctored.drop_field("CounterRowViewModel", "title"),
              "title: sent, but the schema has no such member"),
             ("a union missing a case", wire_doctored.drop_case("loaded"),
              "case \"loaded\" is not one of the schema's"),  # the search's state and rareValues' fetch
             ("another string format", wire_doctored.reformat("date-time", "uuid"),
              "is not in the form of format uuid")],
}


@pytest.mark.parametrize("daemon, what, change, expected",
                         [(d, what, change, expected) for d in DAEMONS for what, change, expected in DOCTORINGS[d]],
                         ids=["%s: %s" % (d, what) for d in DAEMONS for what, _, _ in DOCTORINGS[d]])
def test_a_doctored_schema_fails_the_check(daemon: str, what: str, change: Callable[[Dict[str, Any]], bool],
                                           expected: str, daemon_path: str, appd_path: str) -> None:
    schemas, seen = sent(daemon, daemon_path, appd_path)
    found = all_problems(wire_doctored.doctored(schemas, change), seen)
    assert found, "the check passed %s" % what
    assert all(expected in problem for problem in found), "\n".join(found)
