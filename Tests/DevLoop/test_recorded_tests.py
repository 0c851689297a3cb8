"""Recorded sessions as tests (issue 37), from a package `bindery-dev --init` writes, as its author
would: a form filled in through Neovim (:BinderyRecord) and through the web page (Record, then the
download), each made a test of one line beside the package's own recorded test; `swift test`
passes; the view model changed, it fails with a diff naming the step and the member; record mode
(BINDERY_RECORD=1) writes the transcripts again and the tests pass; and a session recorded with
`bindery-dev --record` replays with `bindery-replay --daemon` against the package's built daemon.

The package is devloop.py's (its build cache kept); its Tests folder is written afresh.
"""
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devloop import DEV, MODEL, PACKAGE, ROOT, DevClient, fixture, nvim_drive, save

REPLAY = str(Path(DEV).parent / "bindery-replay")
TESTS = PACKAGE / "Tests" / "greeterTests"
BUILD = 900  # seconds: the first build of the package's tests (Bindery's testing library in it)
# The editor's and the page's daemon as the README's "Test it" loop runs it: on the virtual clock.
DAEMON = [DEV, "--package-path", str(PACKAGE), "--product", "greeter", "--", "--deterministic"]


@pytest.fixture(scope="module")
def package():
    shutil.rmtree(PACKAGE / "Tests", ignore_errors=True)
    fixture()
    yield PACKAGE
    shutil.rmtree(PACKAGE / "Tests", ignore_errors=True)
    fixture()


def swift_test(**environment):
    return subprocess.run(["swift", "test"], cwd=str(PACKAGE), capture_output=True, text=True, timeout=BUILD,
                          env=dict(os.environ, **environment))


def record_in_neovim(file, tmp_path):
    """A person in Neovim: opens the form, starts recording, types a name, stops."""
    out, drive = tmp_path / "nvim.txt", tmp_path / "drive.lua"
    drive.write_text(nvim_drive(out) + """vim.cmd('BinderyOpen greeting')
if not wait('^Greeting: Hello!$', %d) then return finish('no form') end
vim.cmd('BinderyRecord start %s')
vim.fn.search('^Name:')
vim.cmd('normal! AAda')
if not wait('^Greeting: Hello, Ada!$', 60000) then return finish('no greeting') end
vim.cmd('BinderyRecord stop')
finish('ok')
""" % (BUILD * 1000, file))
    let = "let g:bindery_cmd = [%s]" % ", ".join("'%s'" % word for word in DAEMON)
    subprocess.run(["nvim", "--clean", "--headless", "--cmd", "set rtp+=%s" % (ROOT / "clients" / "nvim"),
                    "--cmd", let, "-c", "luafile %s" % drive], capture_output=True, timeout=BUILD)
    lines = out.read_text().splitlines() if out.exists() else ["nvim did not finish"]
    assert lines[0] == "ok", "\n".join(lines)


def record_in_the_page(folder):
    """A person in the browser: the form, Record, a name typed, Stop and download."""
    sys.path.append("/usr/lib/python3/dist-packages")  # Debian's python3-selenium (scripts/ensure-tools)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    bridge = subprocess.Popen([str(ROOT / "clients" / "web" / "bindery-web"), "--daemon", shlex.join(DAEMON)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    browser = None
    try:
        url = bridge.stdout.readline().strip()
        browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
        browser.get(url + "#/greeting")
        form = WebDriverWait(browser, BUILD, 0.1).until(
            lambda d: d.find_element("css selector", "section.form[data-type='greeting'][data-state='open']"))
        record = browser.find_element("id", "record")
        record.click()
        WebDriverWait(browser, 10, 0.05).until(lambda _: record.text == "Stop and download")
        form.find_element("name", "name").send_keys("Grace")
        greeting = form.find_element("css selector", "[data-member='greeting']")
        WebDriverWait(browser, 60, 0.05).until(lambda _: greeting.text == "Hello, Grace!")
        record.click()
        WebDriverWait(browser, 30, 0.05).until(lambda _: (folder / "greeting.jsonl").exists())
    finally:
        if browser is not None:
            browser.quit()
        os.killpg(bridge.pid, signal.SIGTERM)
        bridge.wait(timeout=30)
    return folder / "greeting.jsonl"


def test_recorded_sessions_become_tests_that_fail_readably_and_record_again(package, tmp_path):
    transcripts = TESTS / "Transcripts"
    assert (transcripts / "greet-ada.jsonl").is_file()  # --init's own recorded test
    record_in_neovim(transcripts / "editor.jsonl", tmp_path)
    shutil.copy(record_in_the_page(tmp_path), transcripts / "page.jsonl")
    for name in ("editor.jsonl", "page.jsonl"):  # the daemon command's --deterministic, in the header
        assert '"arguments":["--deterministic"]' in (transcripts / name).read_text().splitlines()[0], name
    # Each becomes a test with one line.
    with open(TESTS / "GreetingTests.swift", "a") as tests:
        tests.write('@MainActor @Test func fromTheEditor() async throws { try await Transcript("Transcripts/editor.jsonl").replay(registry) }\n'
                    '@MainActor @Test func fromThePage() async throws { try await Transcript("Transcripts/page.jsonl").replay(registry) }\n')
    done = swift_test()
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "Test run with 3 tests" in done.stdout and "passed" in done.stdout

    # A change of behaviour: each test fails with the step, the request and the member.
    original = MODEL.read_text()
    MODEL.write_text(original.replace('"Hello, \\(name)!"', '"Hi, \\(name)!"'))
    done = swift_test()
    assert done.returncode != 0
    assert 'params.changes.greeting: expected "Hello, Ada!", actual "Hi, Ada!"' in done.stdout, done.stdout[-4000:]
    assert 'params.changes.greeting: expected "Hello, Grace!", actual "Hi, Grace!"' in done.stdout, done.stdout[-4000:]
    assert "greet-ada.jsonl: the daemon no longer says what was recorded (1 step differs)" in done.stdout
    assert ('step 4 (line 5), didChange caused by request 2 setField {"session":1,"field":"name","value":"Ada"}:'
            in done.stdout), done.stdout[-4000:]
    assert "BINDERY_RECORD=1 swift test" in done.stdout

    # Record mode: the transcripts written again, the run says so (and fails once), then passes.
    done = swift_test(BINDERY_RECORD="1")
    assert done.returncode != 0 and "again (BINDERY_RECORD)" in done.stdout, done.stdout[-4000:]
    for name in ("greet-ada.jsonl", "editor.jsonl", "page.jsonl"):
        assert "Hi, " in (transcripts / name).read_text() and "Hello, " not in (transcripts / name).read_text(), name
    done = swift_test()
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]

    # bindery-dev --record, across a reload: one transcript, replayed by bindery-replay against the
    # package's built daemon. (The reload changes the daemon but nothing the client sees.)
    recorded = tmp_path / "dev.jsonl"
    dev = DevClient(arguments=["--record", str(recorded)])
    session = dev.result("session/open", {"type": "greeting"}, timeout=BUILD)["session"]
    dev.result("setField", {"session": session, "field": "name", "value": "Ada"})
    changed = MODEL.read_text()
    save(MODEL, changed.replace("var name = \"\"", "var name = \"\"\n    var unseen: Int { 1 }"))
    dev.notification("daemon/reloaded", timeout=BUILD)
    dev.result("setField", {"session": session, "field": "name", "value": "Grace"})
    dev.close()
    save(MODEL, changed)
    lines = recorded.read_text().splitlines()
    assert lines[0] == '{"framing":"ndjson","daemon":"greeter","arguments":["--deterministic","--seed","1"]}', lines[0]
    assert "Hi, Grace!" in lines[-2] and not [line for line in lines if "daemon/" in line], lines
    daemon = PACKAGE / ".build" / "debug" / "greeter"
    done = subprocess.run([REPLAY, "--daemon", str(daemon), str(recorded)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    # ... and fails, naming the member, once the daemon says something else.
    MODEL.write_text(original)
    built = subprocess.run(["swift", "build", "--product", "greeter"], cwd=str(PACKAGE), capture_output=True,
                           text=True, timeout=BUILD)
    assert built.returncode == 0, built.stderr
    done = subprocess.run([REPLAY, "--daemon", str(daemon), str(recorded)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert 'params.changes.greeting: expected "Hi, Ada!", actual "Hello, Ada!"' in done.stdout, done.stdout
