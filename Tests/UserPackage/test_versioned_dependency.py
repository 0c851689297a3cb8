"""A package outside this repository depends on Bindery by version (`.package(url:…, from: "0.1.0")`),
builds a daemon of its own with plain `swift build`, and that daemon serves a form."""
from pathlib import Path

import userpackage
from pipes import Daemon


def test_the_package_depends_on_bindery_by_version():
    manifest = (userpackage.APP / "Package.swift").read_text()
    assert 'from: "0.1.0"' in manifest and "path:" not in manifest


def test_its_own_daemon_serves_a_form(user_daemon):
    daemon = Daemon([user_daemon])
    try:
        opened, _ = daemon.request("session/open", {"type": "signUp"})
        session = opened["result"]["session"]
        assert opened["result"]["state"]["passwordHint"] == "at least 8 characters"
        answer, told = daemon.request("setField", {"session": session, "field": "password", "value": "correct horse"})
        assert "error" not in answer
        assert [m["params"]["changes"] for m in told] == [{"passwordHint": "ok"}]
        daemon.request("setField", {"session": session, "field": "email", "value": "ada@example.com"})
        answer, told = daemon.request("invoke", {"session": session, "command": "signUp"})
        assert answer["result"] == {"result": None}
        assert told[-1]["params"]["changes"]["signedUp"] is True
    finally:
        daemon.close()


def test_its_version_names_the_tracking_it_runs(user_daemon):
    import subprocess
    lines = subprocess.run([user_daemon, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "appdaemon 1.0.0"
    # Linked dynamically, as `swift build` links: the lasting registration all the same.
    assert lines[1].startswith("observation: lasting registration"), lines[1]
    assert "libswiftObservation.so" in lines[1]
