"""Fixtures of the web tests: the real binderyd, bindery-web processes, and one headless Chromium
(driven by Selenium) for the whole session, its tabs reused from test to test."""
from __future__ import annotations

import faulthandler
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.dirname(HERE)
BRIDGE = os.path.join(WEB, "bindery-web")
REPO = os.path.abspath(os.path.join(WEB, "..", ".."))
HANG_GUARD = 60  # seconds: a test that takes this long is hung; dump stacks and stop

# Debian's python3-selenium lives in the system's dist-packages; a Python of its own (pyenv, a
# venv) does not see it. scripts/ensure-tools installs it (with chromium and chromium-driver).
try:
    import selenium  # noqa: F401
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import selenium  # noqa: F401
    except ImportError:
        selenium = None  # type: ignore[assignment]


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    faulthandler.dump_traceback_later(HANG_GUARD, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def binderyd() -> str:
    path = os.environ.get("BINDERYD") or os.path.join(REPO, ".build", "debug", "binderyd")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("These tests run against a real binderyd: set BINDERYD or run `swift build --product "
                    "binderyd` (looked for %s)" % path, pytrace=False)
    return path


class Bridge:
    """A bindery-web process: its URL (first line of stdout), port, token, and its stderr."""

    def __init__(self, daemon: Optional[str], port: int = 0, token: Optional[str] = None,
                 env: Optional[Dict[str, str]] = None, prefix: Sequence[str] = (),
                 arguments: Sequence[str] = ()) -> None:
        """`daemon`: the --daemon command; None: bindery-web's default (binderyd --remote auto).
        `prefix` runs it through a command (prlimit ...), `arguments` are more options."""
        env = {**os.environ, **(env or {})}
        env.pop("BINDERY_WEB_TOKEN", None)
        if token is not None:
            env["BINDERY_WEB_TOKEN"] = token
        argv = [*prefix, sys.executable, BRIDGE, "--port", str(port), "--verbose", *arguments]
        if daemon is not None:
            argv += ["--daemon", daemon]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.stderr: List[str] = []
        self._stderr_thread = threading.Thread(target=self._drain, daemon=True)
        self._stderr_thread.start()
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip()
        if not first.startswith("http://127.0.0.1:"):
            self.stop()
            raise AssertionError("bindery-web printed %r first; stderr:\n%s" % (first, "\n".join(self.stderr)))
        self.url = first
        self.port = int(first.split(":")[2].split("/")[0])
        self.token = first.split("token=", 1)[1]
        self.origin = "http://127.0.0.1:%d" % self.port

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.rstrip("\n"))

    def log_since(self, mark: int) -> List[str]:
        return self.stderr[mark:]

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr_thread.join(2)


@pytest.fixture(scope="session")
def start_bridge(binderyd: str) -> Iterator[Callable[..., Bridge]]:
    """Starts bridges (`--daemon` defaults to the real binderyd); all are stopped at the end."""
    started: List[Bridge] = []

    def start(daemon: Optional[str] = shlex.quote(binderyd), **options: Any) -> Bridge:
        bridge = Bridge(daemon, **options)
        started.append(bridge)
        return bridge

    yield start
    for bridge in started:
        bridge.stop()


@pytest.fixture(scope="session")
def bridge(start_bridge: Callable[..., Bridge]) -> Bridge:
    """The bridge most tests share: each page connection runs a plain binderyd (the real clock)."""
    return start_bridge()


def start_chromium() -> Any:
    """Headless Chromium under chromedriver, as every browser test here uses it (also
    Tests/Shared/test_five_faces.py, which loads this file)."""
    if selenium is None:
        pytest.fail("python3-selenium is missing: run scripts/ensure-tools (it installs chromium, "
                    "chromium-driver and python3-selenium)", pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1000,800", "--disable-extensions", "--no-first-run",
                     "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                     "--disable-backgrounding-occluded-windows"):
        options.add_argument(argument)
    chromium = os.environ.get("BINDERY_TEST_CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(chromium):
        options.binary_location = chromium
    chromedriver = os.environ.get("BINDERY_TEST_CHROMEDRIVER", "/usr/bin/chromedriver")
    service = Service(chromedriver) if os.path.exists(chromedriver) else Service()
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_script_timeout(10)
    return browser


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    browser = start_chromium()
    try:
        yield browser
    finally:
        browser.quit()


class Page:
    """One browser tab showing bindery-web: opening routes, finding forms, waiting for text."""

    def __init__(self, driver: Any, handle: str, bridge: Bridge) -> None:
        self.driver = driver
        self.handle = handle
        self.bridge = bridge
        self.loaded = False

    def focus(self) -> "Page":
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)
        return self

    def load(self, route: str = "#/") -> "Page":
        """Loads the page afresh (a new daemon connection), at `route`."""
        self.focus()
        self.driver.get(self.bridge.url + route)
        self.loaded = True
        self.wait_live()
        return self

    def go(self, route: str) -> "Page":
        """Shows `route` (a hash): in the page already loaded when it is live, else loads it."""
        self.focus()
        live = self.loaded and self.driver.execute_script(
            "return document.getElementById('status').dataset.state === 'live'"
            " && location.port === arguments[0]", str(self.bridge.port))
        if not live:
            return self.load(route)
        current = self.driver.execute_script("return location.hash")
        if current == route == "#/":
            return self
        if current == route:  # shown again, afresh: through the front page
            self._set_hash("#/")
        self._set_hash(route)
        return self

    def _set_hash(self, route: str) -> None:
        before = self.driver.execute_script("return window.binderyWeb.shown")
        self.driver.execute_script("location.hash = arguments[0]", route)
        self.wait_until(lambda d: d.execute_script("return window.binderyWeb.shown") > before,
                        message="the page never showed " + route)

    def wait_live(self, timeout: float = 10) -> None:
        self.wait_until(lambda d: d.find_element("id", "status").get_attribute("data-state") == "live",
                        timeout, "the page never became live")

    def form(self, type_name: str, state: str = "open", timeout: float = 10, index: int = 0) -> Any:
        """The form of `type_name` once in `state` (open, needs-args, dead, ...)."""
        selector = "section.form[data-type='%s']" % type_name

        def found(d: Any) -> Any:
            forms = d.find_elements("css selector", selector)
            return forms[index] if len(forms) > index and forms[index].get_attribute("data-state") == state else False

        return self.wait_until(found, timeout, "no %s form in state %s" % (type_name, state))

    def wait_until(self, condition: Callable[[Any], Any], timeout: float = 10, message: str = "") -> Any:
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait
        self.focus()
        # An element found and then drawn away before it was read (a row removed between the two)
        # is a condition not met yet: asked again, not an error.
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)

    def wait_text(self, element: Any, expected: Any, timeout: float = 10) -> str:
        """Waits until `element`'s text equals `expected` (or satisfies it, when callable)."""
        test = expected if callable(expected) else (lambda text: text == expected)
        box: Dict[str, str] = {}

        def matches(_: Any) -> bool:
            box["text"] = element.text
            return bool(test(box["text"]))

        try:
            self.wait_until(matches, timeout)
        except Exception:
            raise AssertionError("text stayed %r, expected %r" % (box.get("text"), expected))
        return box["text"]


@pytest.fixture(scope="session")
def tabs(driver: Any, bridge: Bridge) -> Dict[str, Page]:
    """Two tabs on the shared bridge, reused by every test: `main` and `other`."""
    main = Page(driver, driver.current_window_handle, bridge)
    driver.switch_to.new_window("tab")
    other = Page(driver, driver.current_window_handle, bridge)
    main.focus()
    return {"main": main, "other": other}


@pytest.fixture
def page(tabs: Dict[str, Page]) -> Page:
    return tabs["main"].focus()


def member(form: Any, name: str) -> Any:
    """The output element of `name` in a form (the pinned hook: data-member)."""
    return form.find_element("css selector", "[data-member='%s']" % name)


def control(form: Any, name: str) -> Any:
    """A field's control, or a command's button, in a form (the pinned hook: name)."""
    return form.find_element("name", name)


def set_scheme(page: Page, value: str) -> None:
    """The browser's prefers-color-scheme: "light" or "dark"."""
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                {"features": [{"name": "prefers-color-scheme", "value": value}]})


def screenshot(page: Page, element: Any, name: str) -> None:
    """An element in light and in dark, as NAME.png and NAME-dark.png in $BINDERY_WEB_SCREENSHOTS
    (the README's pictures: BINDERY_WEB_SCREENSHOTS=clients/web); nothing when it is unset."""
    folder = os.environ.get("BINDERY_WEB_SCREENSHOTS")
    if not folder:
        return
    page.driver.execute_script("if (document.activeElement) document.activeElement.blur()")
    for suffix, value in (("", "light"), ("-dark", "dark")):
        set_scheme(page, value)
        element.screenshot(os.path.join(folder, name + suffix + ".png"))
    set_scheme(page, "light")


def keep_status_said(driver: Any) -> None:
    """Keeps every text the page's status line shows from now on in window.said (a
    MutationObserver: no status is missed between two polls)."""
    driver.execute_script("""
        window.said = [];
        const status = document.getElementById('status');
        new MutationObserver(() => window.said.push(status.textContent))
          .observe(status, {attributes: true, childList: true, subtree: true, characterData: true});""")


def wait_for(condition: Callable[[], Any], timeout: float = 10, message: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + message)
        time.sleep(0.05)
