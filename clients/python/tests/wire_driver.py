"""A raw JSON-RPC connection to a daemon that keeps every value it sends, as sent.

The typed clients decode what they receive, so they cannot show what went on the wire; this speaks
newline-delimited JSON itself and records, per session type, each ``state`` (session/open, and the
``children`` entries of opens and didChanges), each didChange's ``changes`` and each command's
``result`` (the Seen records). Used by test_wire_schemas.py and test_wire_types.py.
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set


@dataclass
class Seen:
    """One value a daemon sent: ``where`` is "state" (a whole state), "change" (a didChange's
    changes), "result" (``member`` is then the command) or "splice" (the elements a splice of list
    ``member`` inserted)."""
    daemon: str
    type: str
    where: str
    member: Optional[str]
    value: Any

    def __str__(self) -> str:
        return "%s %s %s%s" % (self.daemon, self.type, self.where, " " + self.member if self.member else "")


class Wire:
    """One daemon over stdio; requests go one at a time, except ``start`` (answered by a later
    ``clock/advance``). With ``splices``, the client takes the capability, so a list that kept some
    of its elements comes as a splice: its inserted elements are recorded as a Seen "splice"."""

    def __init__(self, daemon: str, path: str, splices: bool = False) -> None:
        self.daemon = daemon
        self.process = subprocess.Popen([path, "--deterministic"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        self.seen: List[Seen] = []
        self.types: Dict[int, str] = {}      # session id -> its view model type
        self.states: Dict[int, Dict[str, Any]] = {}  # session id -> its state, changes folded in
        self.answers: Dict[int, Dict[str, Any]] = {}
        self.gone: Set[int] = set()  # sessions closed or detached
        self.next_id = 0
        if splices:
            agreed = self.request("initialize", {"capabilities": {"splices": True}})["capabilities"]
            assert agreed == {"splices": True}, agreed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()

    def start(self, method: str, params: Dict[str, Any]) -> int:
        """Sends a request; its answer is read by a later ``wait``."""
        assert self.process.stdin is not None
        self.next_id += 1
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                             "params": params}) + "\n")
        self.process.stdin.flush()
        return self.next_id

    def wait(self, request: int, fails: bool = False) -> Any:
        """Reads until ``request`` is answered; its result (an error fails), or with ``fails`` its
        error (a result fails)."""
        assert self.process.stdout is not None
        while request not in self.answers:
            line = self.process.stdout.readline()
            assert line, "%s closed its stdout" % self.daemon
            self._read(json.loads(line))
        answer = self.answers.pop(request)
        if fails:
            assert "error" in answer, "%s answered %s, not an error" % (self.daemon, answer)
            return answer["error"]
        assert "error" not in answer, "%s answered %s" % (self.daemon, answer["error"])
        return answer["result"]

    def request(self, method: str, params: Dict[str, Any]) -> Any:
        return self.wait(self.start(method, params))

    def _read(self, message: Dict[str, Any]) -> None:
        if "id" in message:
            self.answers[message["id"]] = message
            return
        if message.get("method") != "didChange":
            return
        params = message["params"]
        self._children(params.get("children") or {})
        self.gone.update(params.get("detached") or [])
        session = params["session"]
        if params.get("changes"):
            self._record(session, "change", None, params["changes"])
            self.states[session].update(params["changes"])
        for member, splice in (params.get("splices") or {}).items():
            self._record(session, "splice", member, [item for op in splice["ops"] for item in op["insert"]])
            value = list(self.states[session][member])
            for op in splice["ops"]:
                value[op["at"]:op["at"] + op["delete"]] = op["insert"]
            assert len(value) == splice["length"], "a splice that does not fit: %s" % splice
            self.states[session][member] = value

    def _children(self, children: Dict[str, Any]) -> None:
        for key, child in children.items():
            self.types[int(key)] = child["type"]
            self.states[int(key)] = dict(child["state"])
            self._record(int(key), "state", None, child["state"])

    def _record(self, session: int, where: str, member: Optional[str], value: Any) -> None:
        self.seen.append(Seen(self.daemon, self.types[session], where, member, value))

    # What the scenarios call.

    def open(self, type_name: str, args: Any = None) -> int:
        params: Dict[str, Any] = {"type": type_name}
        if args is not None:
            params["args"] = args
        result = self.request("session/open", params)
        session = int(result["session"])
        self.types[session] = type_name
        self.states[session] = dict(result["state"])
        self._record(session, "state", None, result["state"])
        self._children(result.get("children") or {})
        return session

    def set(self, session: int, field: str, value: Any) -> None:
        self.request("setField", {"session": session, "field": field, "value": value})

    def invoke(self, session: int, command: str, args: Any = None, advance: Optional[int] = None,
               fails: bool = False) -> Any:
        """Runs a command; ``advance``: ms of virtual clock to move while it waits on it; ``fails``:
        it throws (its error is returned: no result was sent)."""
        params: Dict[str, Any] = {"session": session, "command": command}
        if args is not None:
            params["args"] = args
        request = self.start("invoke", params)
        if advance is not None:
            self.advance(advance)
        if fails:
            return self.wait(request, fails=True)
        result = self.wait(request)["result"]
        self._record(session, "result", command, result)
        return result

    def read_state(self, session: int) -> None:
        """session/state: the whole state as the daemon sends it (a field just set is not echoed
        to the session that wrote it, so this is how its value comes back)."""
        result = self.request("session/state", {"session": session})
        self._record(session, "state", None, result["state"])
        self._children(result.get("children") or {})

    def read_states(self) -> None:
        """session/state of every session still open (children come with their parents)."""
        for session in [s for s in self.types if s not in self.gone]:
            self.read_state(session)

    def close_session(self, session: int) -> None:
        self.request("session/close", {"session": session})
        self.gone.add(session)

    def advance(self, ms: int) -> None:
        self.request("clock/advance", {"ms": ms})

    def child(self, session: int, member: str) -> int:
        """The session of the child view model ``member`` shows (``{"session": id}``)."""
        return int(self.states[session][member]["session"])
