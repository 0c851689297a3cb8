"""The client mirror corpus (Tests/ClientMirror/cases/*.json) run through bindery/mirror.py, the
mirror Client and AsyncClient fold into: one test per case, compared as reference_mirror.run
compares. With every case run and passed and BINDERY_MIRROR_RECEIPTS set, writes the receipt
``$BINDERY_MIRROR_RECEIPTS/python.json``."""
from __future__ import annotations

import glob
import json
import os
from typing import Any, Dict, Iterator, List

import pytest

from bindery.mirror import Mirror
from conftest import REPO_ROOT

CASES_DIR = os.path.join(REPO_ROOT, "Tests", "ClientMirror", "cases")


def expand(value: Any) -> Any:
    """The corpus's shorthand: ``{"$range": N}`` is the list 0..N-1."""
    if isinstance(value, dict):
        if set(value) == {"$range"}:
            return list(range(value["$range"]))
        return {key: expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item) for item in value]
    return value


def load_cases() -> List[Any]:
    cases = []
    for path in sorted(glob.glob(os.path.join(CASES_DIR, "*.json"))):
        with open(path, encoding="utf-8") as file:
            for case in json.load(file)["cases"]:
                cases.append(pytest.param(case, id="%s: %s" % (os.path.basename(path), case["name"])))
    return cases


CASES = load_cases()
passed: List[str] = []


def fold(case: Dict[str, Any]) -> List[str]:
    """Builds the mirror from ``given``, feeds it ``receive``; returns what differs from ``expect``."""
    given = expand(case["given"])
    mirror = Mirror()
    for ident, session in given.get("sessions", {}).items():
        mirror.hold(int(ident), session["type"], session["revision"], session["state"], session.get("display"))
    for write in given.get("pending", []):
        mirror.write_sent(write["id"], write["session"], write["field"], write["value"])
    for message in expand(case["receive"]):
        if message.get("method") == "didChange":
            mirror.did_change(message["params"])
        elif "id" in message:
            mirror.answered(message["id"], message.get("result"), failed="error" in message)
    expect = expand(case["expect"])
    problems = []
    resync = sorted(str(ident) for ident in mirror.out_of_step)
    if resync != sorted(str(ident) for ident in expect.get("resync", [])):
        problems.append("resync %s, expected %s" % (resync, expect.get("resync", [])))
    if "sessions" in expect:
        held = {str(ident): held for ident, held in mirror.sessions.items() if ident not in mirror.out_of_step}
        if sorted(held) != sorted(expect["sessions"]):
            problems.append("sessions %s, expected %s" % (sorted(held), sorted(expect["sessions"])))
        for ident, expected in expect["sessions"].items():
            session = held.get(ident)
            actual = {} if session is None else {"type": session.type, "revision": session.revision,
                                                 "state": session.state, "display": session.display or None}
            for key, value in expected.items():
                if actual.get(key) != value:
                    problems.append("session %s %s: %r, expected %r" % (ident, key, actual.get(key), value))
    for ident, expected in expect.get("shown", {}).items():
        shown = mirror.shown(int(ident))
        for name, value in expected.items():
            if shown.get(name) != value:
                problems.append("session %s shows %s = %r, expected %r" % (ident, name, shown.get(name), value))
    if "pending" in expect and list(mirror.pending) != expect["pending"]:
        problems.append("pending %s, expected %s" % (list(mirror.pending), expect["pending"]))
    return problems


@pytest.fixture(scope="module", autouse=True)
def receipt() -> Iterator[None]:
    """The corpus receipt, once every case ran and passed in this run."""
    yield
    directory = os.environ.get("BINDERY_MIRROR_RECEIPTS")
    if directory and CASES and len(passed) == len(CASES):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "python.json"), "w", encoding="utf-8") as file:
            json.dump({"face": "python", "cases": len(passed)}, file)


def test_the_corpus_is_there() -> None:
    assert len(CASES) > 0, "no cases under %s" % CASES_DIR


@pytest.mark.parametrize("case", CASES)
def test_case(case: Dict[str, Any]) -> None:
    assert fold(case) == []
    passed.append(case["name"])
