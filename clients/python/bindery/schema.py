"""View model schemas, as ``initialize`` and ``viewModels/describe`` return them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import UnknownCommand, UnknownField

__all__ = ["FieldSchema", "CommandSchema", "Schema", "child_kind", "nested_schemas"]


@dataclass(frozen=True)
class FieldSchema:
    """A field (``writable``) or a read-only output of a view model type."""

    name: str
    label: str
    type: str
    nullable: bool
    writable: bool
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def cases(self) -> Optional[List[str]]:
        """The raw values of an ``enum`` field, else None."""
        return self.raw.get("cases")

    @property
    def format(self) -> Optional[str]:
        """What a string or array stands for (``date-time``, ``uuid``, ``decimal``, ``index-set``...), else None."""
        return self.raw.get("format")


@dataclass(frozen=True)
class CommandSchema:
    """A command; watch ``<name>.enabled`` when ``has_enabled_condition``."""

    name: str
    label: str
    is_async: bool
    has_enabled_condition: bool
    args: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def result(self) -> Optional[Dict[str, Any]]:
        """The type object of what the command returns; None when it returns nothing."""
        return self.raw.get("result")


@dataclass(frozen=True)
class Schema:
    """One view model type: its fields and outputs in declaration order, and its commands."""

    type: str
    fields: Tuple[FieldSchema, ...]
    commands: Tuple[CommandSchema, ...]
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "Schema":
        """Parses one element of the ``viewModels`` list."""
        fields = tuple(
            FieldSchema(name=f["name"], label=f.get("label", f["name"]), type=f.get("type", ""),
                        nullable=bool(f.get("nullable", False)), writable=bool(f.get("writable", False)), raw=f)
            for f in value.get("fields", []))
        commands = tuple(
            CommandSchema(name=c["name"], label=c.get("label", c["name"]), is_async=bool(c.get("async", False)),
                          has_enabled_condition=bool(c.get("hasEnabledCondition", False)), args=c.get("args"), raw=c)
            for c in value.get("commands", []))
        return cls(type=value["type"], fields=fields, commands=commands, raw=value)

    @property
    def writable(self) -> List[str]:
        """Names of the fields ``setField`` accepts."""
        return [f.name for f in self.fields if f.writable]

    @property
    def outputs(self) -> List[str]:
        """Names of the read-only outputs."""
        return [f.name for f in self.fields if not f.writable]

    @property
    def command_names(self) -> List[str]:
        return [c.name for c in self.commands]

    @property
    def members(self) -> List[str]:
        """Every state member: fields, outputs, then ``c.enabled`` and ``c.running`` per command."""
        names = [f.name for f in self.fields]
        for command in self.commands:
            names += [command.name + ".enabled", command.name + ".running"]
        return names

    def child_kind(self, name: str) -> Optional[str]:
        """How a member holds child view models (protocol.md, "Child view models"): ``"one"`` for a
        view model (``nullable`` when it comes and goes), ``"rows"`` for an array of them, else None."""
        member = self.field_named(name)
        return child_kind(member.raw) if member is not None else None

    def field_named(self, name: str) -> Optional[FieldSchema]:
        return next((f for f in self.fields if f.name == name), None)

    def command_named(self, name: str) -> Optional[CommandSchema]:
        return next((c for c in self.commands if c.name == name), None)

    def member_type(self, name: str) -> Optional[Dict[str, Any]]:
        """The type object of a state member (a field's or output's; ``c.enabled`` and
        ``c.running`` are booleans); None for a name the type does not have."""
        member = self.field_named(name)
        if member is not None:
            return member.raw
        command, _, flag = name.rpartition(".")
        if flag in ("enabled", "running") and self.command_named(command) is not None:
            return {"type": "boolean", "nullable": False}
        return None

    # Fail-fast checks: the same code and data the daemon would answer with, without a round trip.

    def check_field(self, name: str, session: Optional[int]) -> None:
        """Raises UnknownField (locally) when ``name`` is no member of this type.

        Read-only members (outputs, ``c.enabled``) are left to the daemon, which answers
        ReadOnlyField with its own data.
        """
        members = self.members
        if name not in members:
            raise UnknownField.make(
                "Unknown field %r in %s; writable fields: %s; read-only: %s"
                % (name, self.type, _list(self.writable), _list([m for m in members if m not in self.writable])),
                {"session": session, "field": name, "known": members}, local=True)

    def check_members(self, names: Sequence[str], session: Optional[int]) -> None:
        """Raises UnknownField (locally) for the first name that is not a state member."""
        members = self.members
        for name in names:
            if name not in members:
                raise UnknownField.make("Unknown member %r in %s; known: %s" % (name, self.type, _list(members)),
                                        {"session": session, "field": name, "known": members}, local=True)

    def check_command(self, name: str, session: Optional[int]) -> None:
        """Raises UnknownCommand (locally) when ``name`` is not a command of this type."""
        if self.command_named(name) is None:
            known = self.command_names
            listing = "known: " + ", ".join(known) if known else "%s has no commands" % self.type
            raise UnknownCommand.make("Unknown command %r in %s; %s" % (name, self.type, listing),
                                      {"session": session, "command": name, "known": known}, local=True)


def child_kind(t: Any) -> Optional[str]:
    """``"one"`` for a view model type object, ``"rows"`` for an array of them, else None."""
    if not isinstance(t, dict):
        return None
    if t.get("type") == "viewModel":
        return "one"
    items = t.get("items")
    if t.get("type") == "array" and isinstance(items, dict) and items.get("type") == "viewModel":
        return "rows"
    return None


def nested_schemas(raw: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The schemas of the child view model types a schema nests (``{"type": "viewModel", "typeName",
    "schema"}``), each once, deepest last; a type described inside itself (``{"type": name}``
    only) is not repeated."""
    found: Dict[str, Dict[str, Any]] = {}

    def walk(t: Any) -> None:
        if not isinstance(t, dict):
            return
        if t.get("type") == "viewModel":
            schema = t.get("schema")
            if isinstance(schema, dict) and "fields" in schema and schema.get("type") not in found:
                found[schema["type"]] = schema
                for member in schema.get("fields") or []:
                    walk(member)
            return
        walk(t.get("items"))
        walk(t.get("values"))

    for member in raw.get("fields") or []:
        walk(member)
    return list(found.values())


def _list(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"
