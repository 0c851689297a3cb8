"""List splices (protocol.md, "List splices"): how a didChange edits a list instead of resending it.

With the ``splices`` capability, a didChange may carry ``splices: {member: {ops, length}}``: each op
``{at, delete, insert}`` removes ``delete`` elements at index ``at`` and inserts ``insert`` there,
in order, on the value the client last had; ``length`` is the list's length after them. Pure
functions, used by the mirror (state.py) that the sync and asyncio sessions share.
"""
from __future__ import annotations

from typing import Any, List, Optional

__all__ = ["apply_splice"]


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def apply_splice(value: Any, splice: Any) -> Optional[List[Any]]:
    """The list ``splice`` makes of ``value``, as a new list (``value`` is left as it was).

    None when the splice does not fit: ``value`` is not a list, an op reaches past its end, or the
    result has another ``length`` than the daemon's. Then the client is out of step with the
    daemon and must fetch the state (session/state) rather than guess.
    """
    if not isinstance(value, list) or not isinstance(splice, dict):
        return None
    ops, length = splice.get("ops"), splice.get("length")
    if not isinstance(ops, list) or not _is_count(length):
        return None
    result = list(value)  # a new list: change sets already delivered keep the value they showed
    for op in ops:
        if not isinstance(op, dict):
            return None
        at: Any = op.get("at")
        delete: Any = op.get("delete")
        insert: Any = op.get("insert")
        if not (_is_count(at) and _is_count(delete) and isinstance(insert, list)) or at + delete > len(result):
            return None
        result[at:at + delete] = insert
    return result if len(result) == length else None
