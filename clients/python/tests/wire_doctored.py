"""Schemas made wrong on purpose, to show that the checks of test_wire_schemas.py and
test_wire_types.py catch a schema that describes less than the daemon sends (as the probe's
schemas did: a struct listing 2 of its 5 members)."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Iterator, List

Type = Dict[str, Any]

#: Per daemon, a struct it sends (typeName) and the member its doctored schema leaves out.
DROPPED = {"binderyd": ("User", "authToken"), "appd": ("Address", "city")}


def type_objects(node: Any) -> Iterator[Type]:
    """Every type object in a schema (or list of them), nested ones included."""
    if isinstance(node, dict):
        if isinstance(node.get("type"), str):
            yield node
        for value in node.values():
            yield from type_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from type_objects(value)


def doctored(schemas: List[Dict[str, Any]], change: Callable[[Type], bool]) -> List[Dict[str, Any]]:
    """A copy of ``schemas`` with ``change`` applied to every type object (it says whether it
    changed one); at least one must change."""
    copied = copy.deepcopy(schemas)
    changed = [t for t in list(type_objects(copied)) if change(t)]
    assert changed, "the doctoring changed nothing"
    return copied


def drop_member(type_name: str, member: str) -> Callable[[Type], bool]:
    def change(t: Type) -> bool:
        if t.get("type") != "object" or t.get("typeName") != type_name:
            return False
        t["members"] = [m for m in t["members"] if m["name"] != member]
        return True
    return change


def drop_field(type_name: str, field: str) -> Callable[[Type], bool]:
    """Drops a field or output from a view model's schema (a schema is among the type objects:
    its ``type`` is its name)."""
    def change(t: Type) -> bool:
        if t.get("type") != type_name or "fields" not in t:
            return False
        t["fields"] = [f for f in t["fields"] if f["name"] != field]
        return True
    return change


def drop_case(case: str) -> Callable[[Type], bool]:
    """Drops an enum's case, or a union's."""
    def change(t: Type) -> bool:
        if t.get("type") == "enum" and case in t["cases"]:
            t["cases"] = [c for c in t["cases"] if c != case]
            return True
        if t.get("type") == "union" and any(c["name"] == case for c in t["cases"]):
            t["cases"] = [c for c in t["cases"] if c["name"] != case]
            return True
        return False
    return change


def reformat(old: str, new: str) -> Callable[[Type], bool]:
    def change(t: Type) -> bool:
        if t.get("format") != old:
            return False
        t["format"] = new
        return True
    return change


def without_dropped_member(daemon: str, schemas: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return doctored(schemas, drop_member(*DROPPED[daemon]))
