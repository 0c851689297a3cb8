"""The client mirror corpus (Tests/ClientMirror) in the page's own mirror, in headless Chromium:
the page loaded from the real bridge, every case run through the module the page itself imported
(`/mirror.js`, the Node client's lib/mirror.js), compared as reference_mirror.py's `run` does."""
from __future__ import annotations

import glob
import json
import os
from typing import Any, Dict, List

from conftest import REPO, Page

CASES = os.path.join(REPO, "Tests", "ClientMirror", "cases")

# Runs in the page: each case's given mirror built, its messages received, what it holds returned.
RUN_IN_PAGE = """
const [cases, done] = [arguments[0], arguments[arguments.length - 1]];
import('/mirror.js').then(({ Mirror }) => {
  if (!(window.binderyWeb.mirror instanceof Mirror)) throw new Error('the page folds with another mirror module');
  done({ results: cases.map(({ given, receive, expect }) => {
    const mirror = new Mirror();
    for (const [id, session] of Object.entries(given.sessions || {})) mirror.take(Number(id), session);
    for (const write of given.pending || []) mirror.write(write.id, write.session, write.field, { value: write.value });
    for (const message of receive) mirror.receive(message);
    const shown = {};
    for (const id of Object.keys(expect.shown || {})) shown[id] = mirror.shown(Number(id));
    return {
      sessions: Object.fromEntries([...mirror.sessions].map(([id, record]) => [String(id), record])),
      resync: [...mirror.outOfStep].map(String),
      shown,
      pending: mirror.pending.map((write) => write.request),
    };
  }) });
}).catch((error) => done({ error: String(error && error.stack || error) }));
"""


def expand(value: Any) -> Any:
    """A case file's shorthand: `{"$range": N}` is the list 0..N-1."""
    if isinstance(value, dict):
        return list(range(value["$range"])) if set(value) == {"$range"} else {k: expand(v) for k, v in value.items()}
    return [expand(item) for item in value] if isinstance(value, list) else value


def problems(case: Dict[str, Any], held: Dict[str, Any]) -> List[str]:
    """What the page's mirror holds that differs from the case's expectation (reference_mirror.run)."""
    expect = case["expect"]
    found = []
    resync = sorted(held["resync"])
    if resync != sorted(str(s) for s in expect.get("resync", [])):
        found.append("resync %s, expected %s" % (resync, expect.get("resync", [])))
    if "sessions" in expect:
        sessions = {ident: record for ident, record in held["sessions"].items() if ident not in resync}
        if sorted(sessions) != sorted(expect["sessions"]):
            found.append("sessions %s, expected %s" % (sorted(sessions), sorted(expect["sessions"])))
        for ident, expected in expect["sessions"].items():
            for key, value in expected.items():
                if sessions.get(ident, {}).get(key) != value:
                    found.append("session %s %s: %r, expected %r" % (ident, key, sessions.get(ident, {}).get(key), value))
    for ident, expected in expect.get("shown", {}).items():
        for name, value in expected.items():
            if held["shown"][ident].get(name) != value:
                found.append("session %s shows %s = %r, expected %r" % (ident, name, held["shown"][ident].get(name), value))
    if "pending" in expect and held["pending"] != expect["pending"]:
        found.append("pending %s, expected %s" % (held["pending"], expect["pending"]))
    return found


def test_every_corpus_case_folds_in_the_pages_mirror(page: Page) -> None:
    cases = [(os.path.basename(path), expand(case)) for path in sorted(glob.glob(os.path.join(CASES, "*.json")))
             for case in json.load(open(path, encoding="utf-8"))["cases"]]
    assert cases, "no cases in " + CASES
    page.go("#/")
    answer = page.driver.execute_async_script(RUN_IN_PAGE, [case for _, case in cases])
    assert "error" not in answer, answer.get("error")
    failures = ["%s: %s: %s" % (name, case["name"], "; ".join(found))
                for (name, case), held in zip(cases, answer["results"]) if (found := problems(case, held))]
    assert failures == []
    receipts = os.environ.get("BINDERY_MIRROR_RECEIPTS")
    if receipts:
        with open(os.path.join(receipts, "web.json"), "w", encoding="utf-8") as handle:
            json.dump({"face": "web", "cases": len(cases)}, handle)
            handle.write("\n")
