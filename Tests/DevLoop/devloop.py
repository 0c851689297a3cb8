"""Shared by the bindery-dev tests, the editors' tests and the dev-loop benchmark: a small package
made by `bindery-dev --init` (a `greeting` view model, depending on this checkout by path) with a
form of child view models added (`tabbedApp`), and a client that drives bindery-dev over pipes.

The package lives in `.build/dev-loop/greeter` of this checkout, so its own `.build` (Bindery
compiled once) survives between runs; `fixture()` writes its sources afresh each time.

    python3 Tests/DevLoop/devloop.py fixture     # (re)writes the package and prints its folder
"""
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEV = os.environ.get("BINDERY_DEV", str(ROOT / ".build" / "debug" / "bindery-dev"))
PACKAGE = ROOT / ".build" / "dev-loop" / "greeter"
MODEL = PACKAGE / "Sources" / "greeter" / "GreetingViewModel.swift"
MAIN = PACKAGE / "Sources" / "greeter" / "main.swift"
TABBED = PACKAGE / "Sources" / "greeter" / "TabbedAppViewModel.swift"

# Examples/AppViewModels' tabbed app as a user's package has it (Swift 6: on the main actor),
# registered beside `greeting` as `tabbedApp`: a form with children (tabs, rows that come and go, a
# detail), for the dev-loop tests of children and the editors'. Its counters tab starts with a row
# of its own, so that a reload has a row the new model makes again.
TABBED_SOURCE = """import BinderyServer

@MainActor @Observable final class CounterRowViewModel {
    let id: Int
    var title: String
    private(set) var count = 0
    init(id: Int, title: String) { self.id = id; self.title = title }
    var summary: String { "\\(title): \\(count)" }
    func increment() { count += 1 }
}

@MainActor @Observable final class ProfileTabViewModel {
    var name = ""
    var canSave: Bool { !name.isEmpty }
}

@MainActor @Observable final class CountersTabViewModel {
    private(set) var rows = [CounterRowViewModel(id: 1, title: "Cups")]
    var newTitle = ""
    private var nextID = 2
    var total: Int { rows.reduce(0) { $0 + $1.count } }
    func add() {
        rows.append(CounterRowViewModel(id: nextID, title: newTitle.isEmpty ? "Counter \\(nextID)" : newTitle))
        nextID += 1
        newTitle = ""
    }
    func remove(id: Int) { rows.removeAll { $0.id == id } }
}

@MainActor @Observable final class TabbedAppViewModel {
    let profileTab = ProfileTabViewModel()
    let countersTab = CountersTabViewModel()
    private(set) var detail: CounterRowViewModel?
    func showDetail(id: Int) { detail = countersTab.rows.first { $0.id == id } }
}

extension CounterRowViewModel: ViewModel {
    static var exposure: Exposure<CounterRowViewModel> {
        Exposure {
            Field("title", \\.title)
            Output("count", \\.count)
            Output("summary", \\.summary)
            Command("increment") { $0.increment() }
        }
    }
}

extension ProfileTabViewModel: ViewModel {
    static var exposure: Exposure<ProfileTabViewModel> {
        Exposure {
            Field("name", \\.name)
            Output("canSave", \\.canSave)
        }
    }
}

extension CountersTabViewModel: ViewModel {
    static var exposure: Exposure<CountersTabViewModel> {
        Exposure {
            Field("newTitle", \\.newTitle)
            Output("rows", \\.rows)
            Output("total", \\.total)
            Command("add") { $0.add() }
            Command("remove") { (model, id: Int) in model.remove(id: id) }
        }
    }
}

extension TabbedAppViewModel: ViewModel {
    static var exposure: Exposure<TabbedAppViewModel> {
        Exposure {
            Output("profileTab", \\.profileTab)
            Output("countersTab", \\.countersTab)
            Output("detail", \\.detail)
            Command("showDetail") { (model, id: Int) in model.showDetail(id: id) }
        }
    }
}
"""


def fixture():
    """Writes the package's sources as `bindery-dev --init` makes them; returns its folder."""
    PACKAGE.mkdir(parents=True, exist_ok=True)
    (PACKAGE / "Package.swift").unlink(missing_ok=True)
    shutil.rmtree(PACKAGE / "Sources", ignore_errors=True)
    subprocess.run([DEV, "--init", str(PACKAGE), "--bindery", str(ROOT)], check=True, stdout=subprocess.DEVNULL)
    TABBED.write_text(TABBED_SOURCE)
    main = MAIN.read_text()
    MAIN.write_text(main.replace("var registry = ViewModelRegistry()\n", "var registry = ViewModelRegistry()\n"
                                 'registry.register("tabbedApp") { _ in TabbedAppViewModel() }\n'))
    assert "tabbedApp" in MAIN.read_text()
    # The recorded test's registry is the daemon's: a transcript recorded from it names both types.
    tests = PACKAGE / "Tests" / "greeterTests" / "GreetingTests.swift"
    registration = 'registry.register("greeting") { _ in GreetingViewModel() }\n'
    assert registration in tests.read_text()
    tests.write_text(tests.read_text().replace(  # in main.swift's order: initialize lists them so
        registration, 'registry.register("tabbedApp") { _ in TabbedAppViewModel() }\n    ' + registration))
    return PACKAGE


def save(path, text, burst=False, mtime_ns=None):
    """Saves a file the way an editor does: a temporary written whole, renamed over the old one.

    Saves follow each other as fast as a test makes them (`burst` only says that a test means
    them to). `mtime_ns` stamps the save with that modification time, as the file system's coarse
    clock stamps two saves made within one of its ticks (4 ms): how a test makes that case happen
    every time instead of once in a while."""
    path = Path(path)
    temporary = path.with_name("." + path.name + ".tmp")
    temporary.write_text(text)
    if mtime_ns is not None:
        os.utime(temporary, ns=(mtime_ns, mtime_ns))
    os.replace(temporary, path)


class DevClient:
    """bindery-dev over pipes, newline-delimited JSON; every message it writes is kept in order."""

    def __init__(self, package=PACKAGE, product="greeter", arguments=()):
        self._attach(subprocess.Popen(
            [DEV, "--package-path", str(package), "--product", product, *arguments],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE))

    @classmethod
    def attach(cls, process, skip_text=False):
        """A client of a process already started with pipes (a script that ends in bindery-dev);
        with skip_text, lines that are not JSON (what the script's other commands print) are skipped."""
        client = cls.__new__(cls)
        client._attach(process, skip_text)
        return client

    def _attach(self, process, skip_text=False):
        self.process = process
        self.skip_text = skip_text
        self.messages = queue.Queue()
        self.seen = []
        self.next_id = 0
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            if self.skip_text and not line.lstrip().startswith((b"{", b"[")):
                continue
            self.messages.put(json.loads(line))
        self.messages.put(None)

    def _read_stderr(self):
        for line in self.process.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def send(self, method, params=None, id=True):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if id:
            self.next_id += 1
            message["id"] = self.next_id
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        return message.get("id")

    def next(self, timeout):
        message = self.messages.get(timeout=timeout)
        assert message is not None, "bindery-dev ended:\n" + "".join(self.stderr[-30:])
        self.seen.append(message)
        return message

    def wait_for(self, predicate, timeout=120, what="a message"):
        """Reads until a message satisfies `predicate`; returns (it, the messages before it)."""
        before = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {what} within {timeout} s; got {before}\n" + "".join(self.stderr[-30:])
            try:
                message = self.next(left)
            except queue.Empty:
                continue
            if predicate(message):
                return message, before
            before.append(message)

    def call(self, method, params=None, timeout=120):
        id = self.send(method, params)
        response, before = self.wait_for(lambda m: m.get("id") == id and "method" not in m, timeout, f"answer to {method}")
        return response, before

    def result(self, method, params=None, timeout=120):
        response, _ = self.call(method, params, timeout)
        assert "result" in response, response
        return response["result"]

    def notification(self, method, timeout=120):
        return self.wait_for(lambda m: m.get("method") == method, timeout, method)

    def stderr_text(self):
        """What bindery-dev has written to stderr so far (its log)."""
        return "".join(self.stderr)

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        return "".join(self.stderr)


if __name__ == "__main__":
    if sys.argv[1:] == ["fixture"]:
        print(fixture())
    else:
        sys.exit(__doc__)


def nvim_drive(out):
    """The start of a headless Neovim script that drives a form as a person would: `wait(text, ms)`
    for a line matching `text`, and `finish(status)`, which writes the status and the buffer to
    `out` and quits."""
    return """
local function wait(text, ms)
  return vim.wait(ms, function() return vim.fn.search(text, 'nw') > 0 end, 50)
end
local function finish(status)
  vim.fn.writefile({ status, unpack(vim.api.nvim_buf_get_lines(0, 0, -1, false)) }, %r)
  vim.cmd('qa!')
end
""" % str(out)
