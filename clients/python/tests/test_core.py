"""The sans-IO core (endpoint.py) driven by hand: no process, no thread, no event loop.

A flow yields effects; here the test performs them, which is what the thread and asyncio
transports do for real. One copy of the timeout, cancellation and reader rules serves both.
"""
from __future__ import annotations

import pytest

from bindery import DaemonExited, RequestCancelled, RequestTimeout
from bindery.endpoint import DRAIN, READ, WAIT_ANSWER, WAIT_EXIT, Stepper
from scripted import Scripted, answer


def test_a_timeout_sends_cancel_request_and_keeps_the_daemons_answer() -> None:
    endpoint = Scripted()
    step = Stepper(endpoint.request_flow("invoke", {"session": 1, "command": "login"}, timeout=0.5))
    assert step.effect == (DRAIN,)
    step.settle((None, None))
    assert step.effect is not None and step.effect[0] == WAIT_ANSWER and step.effect[2] == 0.5
    pending = step.effect[1]
    step.settle((False, None))  # the transport's wait timed out
    assert endpoint.sent[-1] == {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": pending.id}}
    assert step.effect == (WAIT_ANSWER, pending, endpoint.cancel_grace)
    answer(endpoint, {"jsonrpc": "2.0", "id": pending.id, "error": {"code": -32800, "message": "cancelled"}})
    with pytest.raises(RequestTimeout) as caught:
        step.settle((True, None))
    assert isinstance(caught.value.cancellation, RequestCancelled)


def test_an_interrupted_wait_cancels_and_re_raises() -> None:
    endpoint = Scripted()
    step = Stepper(endpoint.request_flow("invoke", {"session": 1, "command": "login"}))
    step.settle((None, None))
    with pytest.raises(KeyboardInterrupt):
        step.settle((None, KeyboardInterrupt()))  # what the transport caught while waiting
    assert endpoint.sent[-1]["method"] == "$/cancelRequest"


def test_the_reader_handles_a_last_ndjson_line_without_newline_then_fails_the_rest() -> None:
    endpoint = Scripted()
    first = endpoint.send_request("session/open", {"type": "email"})
    second = endpoint.send_request("session/open", {"type": "email"})
    reader = Stepper(endpoint.read_flow())
    assert reader.effect == (READ,)
    reader.settle((b'{"jsonrpc":"2.0","id":1,"result":{"session":1}}', None))  # no newline yet
    assert not first.done
    reader.settle((b"", None))  # end of output: the last line still counts
    assert first.done and first.outcome() == {"session": 1}
    assert reader.effect is not None and reader.effect[0] == WAIT_EXIT
    reader.settle((3, None))
    reader.settle((None, None))  # stderr read to its end
    assert reader.effect is None and endpoint.lost
    with pytest.raises(DaemonExited) as caught:
        second.outcome()
    assert caught.value.returncode == 3
