"""A scripted peer for the sans-IO core: no process, no thread, no event loop.

``Scripted`` is an Endpoint whose transport records what the client writes; ``ScriptedHub`` is the
client's session table and folding (hub.py, state.py: the code Client and AsyncClient share) on
top of it. A test feeds the daemon's messages with ``answer`` and runs flows with ``drive``.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Tuple

from bindery import NDJSON, Changes
from bindery.endpoint import DRAIN, WAIT_ANSWER, Endpoint, Flow, Stepper
from bindery.hub import Hub
from bindery.state import SessionBase


class Scripted(Endpoint):
    """An Endpoint whose transport only records what is written."""

    def __init__(self) -> None:
        super().__init__(["binderyd"], framing=NDJSON)
        self.sent: List[Any] = []
        self.killed = False
        self.lost = False

    def _transmit(self, data: bytes) -> None:
        self.sent.extend(json.loads(line) for line in data.splitlines())

    def _close_stdin(self) -> None:
        pass

    def _kill(self) -> None:
        self.killed = True

    def _returncode(self) -> Optional[int]:
        return None

    def _actor(self) -> object:
        return None

    def _signal_lost(self) -> None:
        self.lost = True


def answer(endpoint: Endpoint, message: Any) -> None:
    """Feeds one message from the daemon to the client's reader."""
    endpoint.receive(json.dumps(message).encode() + b"\n")


class ScriptedSession(SessionBase):
    def _notify_waiters(self) -> None:
        pass


class ScriptedHub(Hub[ScriptedSession]):
    """The shared core of both clients over a Scripted endpoint; ``published`` holds every change
    set delivered to listeners, in order."""

    def __init__(self, daemon: str, splices: bool = True) -> None:
        super().__init__(daemon, None, None, splices)  # nothing is spawned: the daemon is a path only
        self.endpoint = Scripted()
        self._attach(self.endpoint)
        self.published: List[Tuple[int, Changes]] = []

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> ScriptedSession:
        return ScriptedSession(self, session_id, type_name, None, key, state, revision)

    def _publish(self, session: ScriptedSession, changes: Changes) -> None:
        self.published.append((session.id, changes))

    def open(self, session_id: int, state: Dict[str, Any], revision: int = 0) -> ScriptedSession:
        """A session as if session/open had answered so."""
        return self._adopt("thing", None, {"session": session_id, "revision": revision, "state": state})

    def did_change(self, session: int, revision: int, changes: Optional[Dict[str, Any]] = None,
                   splices: Optional[Dict[str, Any]] = None, cause: Any = None) -> None:
        params: Dict[str, Any] = {"session": session, "revision": revision, "changes": changes or {}}
        if splices is not None:
            params["splices"] = splices
        if cause is not None:
            params["cause"] = cause
        answer(self.endpoint, {"jsonrpc": "2.0", "method": "didChange", "params": params})

    def requests(self, method: str) -> List[Dict[str, Any]]:
        """The requests of ``method`` the client sent so far."""
        return [m for m in self.endpoint.sent if m.get("method") == method and "id" in m]


def drive(flow: Flow[Any], daemon: Callable[[Any], None]) -> Any:
    """Runs a flow to its end; when it waits for an answer, ``daemon(pending)`` feeds what the daemon
    says (the answer included). Returns the flow's value, or raises its error."""
    step = Stepper(flow)
    while step.effect is not None:
        if step.effect[0] == DRAIN:
            step.settle((None, None))
        elif step.effect[0] == WAIT_ANSWER:
            pending = step.effect[1]
            if not pending.done:
                daemon(pending)
            step.settle((pending.done, None))
        else:
            raise AssertionError("unexpected effect %r" % (step.effect,))
    return step.value
