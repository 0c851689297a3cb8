"""The Record button, as a person meets it: record a form being filled in, stop, and the browser
downloads a transcript made in the page (a blob:, nothing written by the server), which
bindery-replay then replays against a fresh daemon; a changed one fails naming the member."""
from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Callable

from conftest import Page, control, member, wait_for

REPLAY = os.path.join(os.path.dirname(os.environ.get("BINDERYD", "")) or ".", "bindery-replay")


def test_record_then_download_a_transcript_that_replays(driver: Any, start_bridge: Callable[..., Any],
                                                       binderyd: str, tmp_path: Path) -> None:
    bridge = start_bridge(shlex.quote(binderyd) + " --deterministic")
    page = Page(driver, driver.current_window_handle, bridge)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    page.load("#/email")
    form = page.form("email")
    record = driver.find_element("id", "record")
    record.click()
    page.wait_text(record, "Stop and download")
    control(form, "email").send_keys("ada@example.com")
    page.wait_text(member(form, "validationMessage"), "Email is valid")
    record.click()
    page.wait_text(record, "Record")
    saved = wait_for(lambda: (tmp_path / "email.jsonl").exists() and (tmp_path / "email.jsonl"), message="the download")
    lines = saved.read_text().splitlines()
    assert lines[0] == '{"framing":"ndjson","daemon":"binderyd","arguments":["--deterministic"]}'
    assert '"method":"initialize"' in lines[1]
    replay = subprocess.run([os.path.abspath(REPLAY), "--daemon", binderyd, str(saved)],
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    saved.write_text(saved.read_text().replace("Email is valid", "Email is fine"))
    replay = subprocess.run([os.path.abspath(REPLAY), "--daemon", binderyd, str(saved)],
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 1
    assert 'params.changes.validationMessage: expected "Email is fine", actual "Email is valid"' in replay.stdout
