"""What the scenarios made the daemons send, against what the schemas allow: a check of a value
proves nothing about a case never sent. Places are written ``type.member`` then ``[]`` (elements),
``{}`` (dictionary values), ``.name`` (a struct's member), ``#case`` (a union's case); a place ends
in ``?`` for a nullable one holding a value, ``!`` for an optional member present, or is a case.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

from wire_driver import Seen
from wire_schema import state_members

Type = Dict[str, Any]


def possible(t: Optional[Type], path: str, out: Set[str]) -> None:
    """Every place ``t`` lets a value reach: union cases, nullables with a value, optional members."""
    if t is None:
        return
    if t.get("nullable"):
        out.add(path + "?")
    kind = t.get("type")
    if kind == "array":
        possible(t["items"], path + "[]", out)
    elif kind == "dictionary":
        possible(t["values"], path + "{}", out)
    elif kind == "object":
        _members(t["members"], path, out)
    elif kind == "union":
        for case in t["cases"]:
            out.add(path + "#" + case["name"])
            _members(case["members"], path + "#" + case["name"], out)


def _members(members: List[Type], path: str, out: Set[str]) -> None:
    for member in members:
        if member.get("optional"):
            out.add(path + "." + member["name"] + "!")
        possible(member, path + "." + member["name"], out)


def reached(value: Any, t: Optional[Type], path: str, out: Set[str]) -> None:
    """The places of ``possible`` that ``value`` reaches."""
    if t is None or value is None:
        return
    if t.get("nullable"):
        out.add(path + "?")
    kind = t.get("type")
    if kind == "array" and isinstance(value, list):
        for item in value:
            reached(item, t["items"], path + "[]", out)
    elif kind == "dictionary" and isinstance(value, dict):
        for item in value.values():
            reached(item, t["values"], path + "{}", out)
    elif kind == "object" and isinstance(value, dict):
        _reached_members(value, t["members"], path, out)
    elif kind == "union" and isinstance(value, dict):
        for case in t["cases"]:
            if case["name"] == value.get("case"):
                out.add(path + "#" + case["name"])
                _reached_members(value, case["members"], path + "#" + case["name"], out)


def _reached_members(value: Dict[str, Any], members: List[Type], path: str, out: Set[str]) -> None:
    for member in members:
        if member["name"] in value:
            if member.get("optional"):
                out.add(path + "." + member["name"] + "!")
            reached(value[member["name"]], member, path + "." + member["name"], out)


def unreached(schemas: Dict[str, Dict[str, Any]], seen: List[Seen]) -> Set[str]:
    """The places the schemas allow that no value sent reached."""
    allowed: Set[str] = set()
    for name, schema in schemas.items():
        for field in schema["fields"]:
            possible(field, name + "." + field["name"], allowed)
        for command in schema["commands"]:
            possible(command.get("result"), "%s.%s()" % (name, command["name"]), allowed)
    found: Set[str] = set()
    for value in seen:
        schema = schemas[value.type]
        if value.where == "result":
            command = next(c for c in schema["commands"] if c["name"] == value.member)
            reached(value.value, command.get("result"), "%s.%s()" % (value.type, value.member), found)
        elif value.where == "splice":
            items = state_members(schema)[value.member or ""]["items"]
            for item in value.value:
                reached(item, items, "%s.%s[]" % (value.type, value.member), found)
        else:
            members = state_members(schema)
            for name, item in value.value.items():
                reached(item, members.get(name), value.type + "." + name, found)
    return allowed - found
