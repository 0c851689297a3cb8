"""Whether a value a daemon sent is what its schema says (protocol.md, "Schemas", "Value types").

``problems(value, type)`` lists every place where the type object describes something else than
the value: a member sent that the schema does not list, a required member not sent, an element,
dictionary value or payload of another type, a case the enum or union does not have, a string not
in its format's form. ``seen_problems`` checks a whole state, change set or command result against
its view model's schema. Written here, not taken from a client, so that it shares no mistake with
the code it checks.
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterator, List, Optional

from wire_driver import Seen

Type = Dict[str, Any]

#: The forms protocol.md pins for each string format.
FORMATS = {
    "date-time": re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"),  # UTC, milliseconds
    "uuid": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),  # lowercase
    "decimal": re.compile(r"-?\d+(\.\d+)?"),  # exact, positional
    "byte": re.compile(r"([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"),  # standard, padded
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*"),  # an absolute URL
    "error": re.compile(r".*", re.S),  # a message
}


def problems(value: Any, t: Type, path: str = "$") -> List[str]:
    """Every way ``value`` differs from type object ``t`` (empty: the schema is exact for it)."""
    kind = t.get("type")
    if value is None:
        return [] if t.get("nullable") or kind == "any" else ["%s: null, but the schema's %s is not nullable" % (path, kind)]
    if kind == "any":
        return []
    check = CHECKS.get(kind) if isinstance(kind, str) else None
    if check is None:
        return ["%s: the schema's type %r is none protocol.md lists" % (path, kind)]
    return check(value, t, path)


def _wrong(value: Any, t: Type, path: str) -> List[str]:
    return ["%s: the schema says %s, the value is %s" % (path, t.get("type"), json.dumps(value)[:200])]


def _string(value: Any, t: Type, path: str) -> List[str]:
    if not isinstance(value, str):
        return _wrong(value, t, path)
    form = t.get("format")
    if form is None:
        return []
    if form not in FORMATS:
        return ["%s: the schema's string format %r is none protocol.md lists" % (path, form)]
    return [] if FORMATS[form].fullmatch(value) else ["%s: %r is not in the form of format %s" % (path, value, form)]


def _boolean(value: Any, t: Type, path: str) -> List[str]:
    return [] if isinstance(value, bool) else _wrong(value, t, path)


def _integer(value: Any, t: Type, path: str) -> List[str]:
    return [] if isinstance(value, int) and not isinstance(value, bool) else _wrong(value, t, path)


def _number(value: Any, t: Type, path: str) -> List[str]:
    if t.get("format") not in (None, "seconds"):
        return ["%s: the schema's number format %r is none protocol.md lists" % (path, t["format"])]
    return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else _wrong(value, t, path)


def _enum(value: Any, t: Type, path: str) -> List[str]:
    if value in t["cases"]:
        return []
    return ["%s: %s is not one of the schema's cases %s" % (path, json.dumps(value), t["cases"])]


def _array(value: Any, t: Type, path: str) -> List[str]:
    if not isinstance(value, list):
        return _wrong(value, t, path)
    found = [p for i, item in enumerate(value) for p in problems(item, t["items"], "%s[%d]" % (path, i))]
    if t.get("uniqueItems") and len({json.dumps(item, sort_keys=True) for item in value}) != len(value):
        found.append("%s: the schema says uniqueItems, the value repeats an element" % path)
    if t.get("format") == "index-set" and value != sorted(value):
        found.append("%s: an index set that is not sorted" % path)
    return found


def _dictionary(value: Any, t: Type, path: str) -> List[str]:
    if not isinstance(value, dict):
        return _wrong(value, t, path)
    return [p for key, item in value.items() for p in problems(item, t["values"], "%s.%s" % (path, key))]


def _object(value: Any, t: Type, path: str) -> List[str]:
    return _members(value, t["members"], path) if isinstance(value, dict) else _wrong(value, t, path)


def _union(value: Any, t: Type, path: str) -> List[str]:
    if not isinstance(value, dict):
        return _wrong(value, t, path)
    cases = {case["name"]: case for case in t["cases"]}
    if value.get("case") not in cases:
        return ["%s: case %s is not one of the schema's %s" % (path, json.dumps(value.get("case")), list(cases))]
    rest = {key: item for key, item in value.items() if key != "case"}
    return _members(rest, cases[value["case"]]["members"], "%s{%s}" % (path, value["case"]))


def _view_model(value: Any, t: Type, path: str) -> List[str]:
    ok = isinstance(value, dict) and list(value) == ["session"] and _integer(value["session"], t, path) == []
    return [] if ok else ["%s: a child view model is {\"session\": id}, the value is %s" % (path, json.dumps(value))]


def _members(value: Dict[str, Any], members: List[Type], path: str) -> List[str]:
    described = {m["name"]: m for m in members}
    found = ["%s.%s: sent, but not among the schema's members %s" % (path, key, list(described))
             for key in value if key not in described]
    found += ["%s.%s: required by the schema, not sent" % (path, m["name"])
              for m in members if not m.get("optional") and m["name"] not in value]
    for key, item in value.items():
        if key in described:
            found += problems(item, described[key], "%s.%s" % (path, key))
    return found


CHECKS = {"string": _string, "boolean": _boolean, "integer": _integer, "number": _number, "enum": _enum,
          "array": _array, "dictionary": _dictionary, "object": _object, "union": _union, "viewModel": _view_model}


# Whole states, change sets and results, by view model type.

def view_models(schemas: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Every view model schema by type name: the listed ones and the children nested in them."""
    found: Dict[str, Dict[str, Any]] = {}

    def visit(schema: Dict[str, Any], name: str) -> None:
        if name in found:
            return
        found[name] = schema
        for field in schema["fields"]:
            child = field.get("items") if field["type"] == "array" else field
            if child.get("type") == "viewModel" and "fields" in child.get("schema", {}):
                visit(child["schema"], child["typeName"])

    for schema in schemas:
        visit(schema, schema["type"])
    return found


def state_members(schema: Dict[str, Any]) -> Dict[str, Type]:
    """A state's members: the fields and outputs, and each command's ``.enabled`` and ``.running``."""
    members = {field["name"]: field for field in schema["fields"]}
    for command in schema["commands"]:
        for suffix in (".enabled", ".running"):
            members[command["name"] + suffix] = {"type": "boolean", "nullable": False}
    return members


def member_type(schema: Dict[str, Any], seen: Seen) -> Optional[Type]:
    """The type object a result is described by (None: the command has no result)."""
    command = next(c for c in schema["commands"] if c["name"] == seen.member)
    result: Optional[Type] = command.get("result")
    return result


def seen_problems(schemas: Dict[str, Dict[str, Any]], seen: Seen) -> Iterator[str]:
    """What is wrong with one value the daemon sent, against its type's schema."""
    schema = schemas.get(seen.type)
    if schema is None:
        yield "%s: no schema describes the type %s" % (seen, seen.type)
        return
    if seen.where == "result":
        t = member_type(schema, seen)
        if t is None:
            if seen.value is not None:
                yield "%s: the command has no result in the schema, and answered %s" % (seen, json.dumps(seen.value))
            return
        yield from ("%s: %s" % (seen, p) for p in problems(seen.value, t))
        return
    members = state_members(schema)
    if seen.where == "splice":
        t = members.get(seen.member or "")
        if t is None or t.get("type") != "array":
            yield "%s: a splice of a member the schema has no list for: %s" % (seen, t)
            return
        for index, item in enumerate(seen.value):
            yield from ("%s: %s" % (seen, p) for p in problems(item, t["items"], "$.%s+[%d]" % (seen.member, index)))
        return
    if seen.where == "state":
        yield from ("%s: %s: a member of the schema, not in the state" % (seen, name)
                    for name in members if name not in seen.value)
    for name, value in seen.value.items():
        if name not in members:
            yield "%s: %s: sent, but the schema has no such member" % (seen, name)
        else:
            yield from ("%s: %s" % (seen, p) for p in problems(value, members[name], "$." + name))
