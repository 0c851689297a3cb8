"""The page on the shared daemon (`binderyd --listen PATH`, each page connection a
`binderyd --remote PATH` forwarder): two tabs on one key stay in sync, a movie saved in one tab
appears in another tab's list, a Python script driving a keyed session is seen live in the page,
and bindery-web's default daemon command (`binderyd --remote auto`).

Skipped, saying why, when the binderyd under test has no --remote."""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
from typing import Any, Callable, Dict, Iterator, List

import pytest

from conftest import REPO, Bridge, Page, control, keep_status_said, member, wait_for


def has_remote(binderyd: str) -> bool:
    done = subprocess.run([binderyd, "--help"], capture_output=True, timeout=10)
    return b"--remote" in done.stdout + done.stderr


def binderyd_under_test() -> str:
    return os.environ.get("BINDERYD") or os.path.join(REPO, ".build", "debug", "binderyd")


# Decided when the module is collected: no browser is started for tests that cannot run.
@pytest.fixture(autouse=True)
def binderyd_has_remote() -> None:
    """Every test here needs the shared daemon: a binderyd without --remote fails them, saying so."""
    daemon = binderyd_under_test()
    assert has_remote(daemon), "%s --help has no --remote: these tests need the shared daemon" % daemon


def python_client() -> Any:
    sys.path.insert(0, os.path.join(REPO, "clients", "python"))
    from bindery import Client
    return Client


def listening_daemons(socket_path: str) -> List[int]:
    """Pids of `binderyd --listen` processes serving `socket_path` (one `--remote` may have started)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as handle:
                words = handle.read().split(b"\0")
        except OSError:
            continue
        if b"--listen" in words and socket_path.encode() in words:
            pids.append(int(entry))
    return pids


def stop_daemons(socket_path: str) -> None:
    for pid in listening_daemons(socket_path):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    wait_for(lambda: not listening_daemons(socket_path), 10, "the shared daemon to stop")


@pytest.fixture(scope="module")
def socket_path(binderyd: str, tmp_path_factory: Any) -> Iterator[str]:
    """A shared daemon this module starts (so that it stops it): `binderyd --listen PATH`."""
    folder = tmp_path_factory.mktemp("shared")
    os.chmod(folder, 0o700)
    path = str(folder / "daemon.sock")
    process = subprocess.Popen([binderyd, "--listen", path], stderr=subprocess.DEVNULL)
    wait_for(lambda: os.path.exists(path), 10, "the shared daemon's socket")
    yield path
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def shared(start_bridge: Callable[..., Bridge], binderyd: str, socket_path: str) -> Bridge:
    return start_bridge("%s --remote %s" % (shlex.quote(binderyd), shlex.quote(socket_path)))


@pytest.fixture
def two(driver: Any, tabs: Dict[str, Page], shared: Bridge) -> Dict[str, Page]:
    return {name: Page(driver, tab.handle, shared) for name, tab in tabs.items()}


def test_two_tabs_on_one_key_stay_in_sync(two: Dict[str, Page]) -> None:
    one = two["main"].go("#/survey/team")
    first = one.form("survey")
    session = first.get_attribute("data-session")
    other = two["other"].go("#/survey/team")
    second = other.form("survey")
    assert second.get_attribute("data-session") == session
    one.focus()
    control(first, "name").send_keys("Ada")
    other.wait_until(lambda _: control(second, "name").get_attribute("value") == "Ada", message="tab 2 name")
    other.wait_text(member(second, "prettyString"), lambda text: text.startswith("Name: Ada\n"))
    control(second, "name").send_keys(" Lovelace")
    control(second, "isCurrentEmployer").click()
    one.wait_until(lambda _: control(first, "name").get_attribute("value") == "Ada Lovelace", message="tab 1 name")
    one.wait_until(lambda _: control(first, "isCurrentEmployer").is_selected())
    one.wait_text(member(first, "prettyString"), lambda text: "Current Employer?: YES" in text)
    # Typing in turn in one field: neither tab is overwritten by a stale echo of the other.
    control(first, "comments").send_keys("one")
    other.wait_until(lambda _: control(second, "comments").get_attribute("value") == "one")
    control(second, "comments").send_keys(" two")
    one.wait_until(lambda _: control(first, "comments").get_attribute("value") == "one two")
    # The caret stayed where tab 1 left it (after "one"): End, then type.
    from selenium.webdriver.common.keys import Keys
    control(first, "comments").send_keys(Keys.END + " three")
    other.wait_until(lambda _: control(second, "comments").get_attribute("value") == "one two three")
    one.focus()
    assert control(first, "comments").get_attribute("value") == "one two three"


def test_a_movie_saved_in_one_tab_appears_in_the_list_of_another(two: Dict[str, Page]) -> None:
    lists = two["main"].go("#/movieList")
    movies = member(lists.form("movieList"), "movies")
    before = len(movies.find_elements("css selector", "tbody tr"))
    adding = two["other"].go("#/addMovie")
    form = adding.form("addMovie")
    control(form, "title").send_keys("Brazil")
    save = control(form, "save")
    adding.wait_until(lambda _: save.is_enabled())
    save.click()
    adding.wait_text(form.find_element("css selector", "[data-result-of='save']"), lambda text: "Brazil" in text)
    lists.wait_until(lambda _: len(movies.find_elements("css selector", "tbody tr")) == before + 1,
                     message="the movie in the other tab's list")
    last = movies.find_elements("css selector", "tbody tr")[-1]
    assert last.find_element("css selector", "td[data-name='fullTitle']").text == "Brazil"


def test_a_python_script_driving_a_keyed_session_is_seen_live(two: Dict[str, Page], binderyd: str, socket_path: str) -> None:
    page = two["main"].go("#/login/scripted")
    form = page.form("login")
    button = control(form, "login")
    Client = python_client()
    with Client(binderyd, ["--remote", socket_path], timeout=20) as client:
        login = client.open("login", key="scripted")
        assert str(login.id) == form.get_attribute("data-session")
        login.set("firstName", "Ada")
        login.set("lastName", "Lovelace")
        page.wait_until(lambda _: control(form, "lastName").get_attribute("value") == "Lovelace")
        page.wait_until(lambda _: button.is_enabled(), message="login enabled by the script's writes")
        # The invoke blocks for 1.5 s: the page is watched meanwhile.
        result: Dict[str, Any] = {}
        worker = threading.Thread(target=lambda: result.update(user=login.invoke("login", timeout=10)))
        worker.start()
        page.wait_until(lambda _: button.get_attribute("aria-busy") == "true", message="busy while the script's login runs")
        page.wait_text(member(form, "userLoadingInProgress"), "Yes")
        worker.join(10)
        assert result["user"]["authToken"] == "123adasdsadasdasdasdd"
        page.wait_text(member(form, "loggedInUser"), lambda text: "123adasdsadasdasdasdd" in text)
        assert button.get_attribute("aria-busy") == "false"
        # And the other way: the page types, the script sees it.
        control(form, "firstName").send_keys("!")
        login.wait_until(lambda state: state["firstName"] == "Ada!", timeout=5)


def test_the_default_daemon_is_the_shared_one(start_bridge: Callable[..., Bridge], driver: Any, tabs: Dict[str, Page],
                                               binderyd: str, tmp_path: Any) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    auto = str(runtime / "bindery" / "daemon.sock")
    bridge = start_bridge(None, env={"XDG_RUNTIME_DIR": str(runtime), "BINDERYD": binderyd})
    try:
        wait_for(lambda: any(line.endswith("binderyd --remote auto") for line in bridge.stderr), 5,
                 "bindery-web to say it runs binderyd --remote auto")
        page = Page(driver, tabs["other"].handle, bridge).load("#/email/auto-key")
        form = page.form("email")
        Client = python_client()
        env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
        with Client(binderyd, ["--remote", "auto"], env=env, timeout=20) as client:
            session = client.open("email", key="auto-key")
            session.set("email", "ada@example.com")
            page.wait_until(lambda _: control(form, "email").get_attribute("value") == "ada@example.com")
            page.wait_text(member(form, "isValid"), "Yes")
    finally:
        bridge.stop()
        stop_daemons(auto)


def test_a_restarted_bridge_reattaches_the_live_keyed_session(driver: Any, tabs: Dict[str, Page], binderyd: str,
                                                             socket_path: str, start_bridge: Callable[..., Bridge]) -> None:
    """The shared daemon outlives the bridge: after a restart the page reopens its key and gets the
    live session — with what a script wrote meanwhile — not a copy restored from its snapshot."""
    import socket as sockets
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = "%s --remote %s" % (shlex.quote(binderyd), shlex.quote(socket_path))
    first = start_bridge(daemon, port=port, token="reattach-token")
    page = Page(driver, tabs["other"].handle, first).load("#/survey/reattach")
    form = page.form("survey")
    session = form.get_attribute("data-session")
    control(form, "name").send_keys("Ada")
    Client = python_client()
    with Client(binderyd, ["--remote", socket_path], timeout=20) as client:
        survey = client.open("survey", key="reattach")  # keeps the session alive while the page is away
        survey.wait_until(lambda state: state["name"] == "Ada", timeout=5)
        first.stop()
        page.wait_until(lambda d: d.find_element("id", "status").get_attribute("data-state") == "offline")
        survey.set("companyName", "Engines")
        page.bridge = start_bridge(daemon, port=port, token="reattach-token")
        page.wait_live(timeout=15)
        form = page.form("survey")
        assert form.get_attribute("data-session") == session
        page.wait_until(lambda _: control(form, "companyName").get_attribute("value") == "Engines")
        assert control(form, "name").get_attribute("value") == "Ada"
        page.wait_text(member(form, "prettyString"), lambda text: text.startswith("Name: Ada\nCompany: Engines\n"))
        control(form, "comments").send_keys("back")
        survey.wait_until(lambda state: state["comments"] == "back", timeout=5)


def test_a_killed_shared_daemon_comes_back_with_the_keyed_form(start_bridge: Callable[..., Bridge], driver: Any,
                                                             tabs: Dict[str, Page], binderyd: str, tmp_path: Any) -> None:
    """`kill -9` of the shared daemon behind bindery-web (`--remote auto`, which keeps keyed forms in
    --state): the page says so, reconnects by itself (a new daemon started), and the keyed form comes
    back with its values, live."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    auto = str(runtime / "bindery" / "daemon.sock")
    state = tmp_path / "state"
    bridge = start_bridge(None, env={"XDG_RUNTIME_DIR": str(runtime), "XDG_STATE_HOME": str(state), "BINDERYD": binderyd})
    try:
        page = Page(driver, tabs["other"].handle, bridge).load("#/survey/killed")
        form = page.form("survey")
        control(form, "name").send_keys("Ada")
        page.wait_text(member(form, "prettyString"), lambda text: text.startswith("Name: Ada\n"))
        stored = state / "bindery" / "sessions"  # a folder per socket
        wait_for(lambda: any("Ada" in entry.read_text(errors="replace") for entry in stored.glob("*/session-*.json")),
                 10, "the daemon to store the keyed form")
        keep_status_said(page.driver)
        [pid] = listening_daemons(auto)
        os.kill(pid, signal.SIGKILL)
        page.wait_until(lambda d: any("killed by signal 9" in text for text in d.execute_script("return window.said")),
                        message="the page did not say how the daemon ended")
        page.wait_live(timeout=20)  # by itself: no click
        form = page.form("survey")
        assert control(form, "name").get_attribute("value") == "Ada"
        assert listening_daemons(auto) not in ([], [pid])
        control(form, "name").send_keys("!")
        page.wait_text(member(form, "prettyString"), lambda text: text.startswith("Name: Ada!\n"))
    finally:
        bridge.stop()
        stop_daemons(auto)
