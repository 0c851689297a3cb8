"""Issue 23: an exposure line that cannot work is a compile error that names why — every such line,
not only the first (Tests/Diagnostics/BadExposure.swift.txt has four).

Type-checks the file against the Bindery module the test command has just built (.build/debug)."""
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, ".build", "debug")
EXPECTED = {
    19: "a Field needs a settable property ('var' with a setter); use Output for a read-only one",
    21: "a Field needs a settable property ('var' with a setter); use Output for a read-only one",
    22: "a command takes at most one argument value after the model: put several in a struct (or a tuple) of your own",
    23: "'enabled:' needs a Bool property of the view model",
}


def typecheck(source: str) -> subprocess.CompletedProcess:
    """swiftc -typecheck of `source` (as BadExposure.swift) against the built Bindery module."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "BadExposure.swift")
        with open(path, "w") as file:
            file.write(source)
        command = ["swiftc", "-typecheck", "-I", os.path.join(BUILD, "Modules")]
        for module in ("CSwiftRuntime", "CDispatchMainQueue"):
            command += ["-Xcc", "-fmodule-map-file=%s" % os.path.join(ROOT, "Sources", module, "include", "module.modulemap")]
        return subprocess.run(command + [path], capture_output=True, text=True, timeout=120)


def test_every_bad_exposure_line_is_reported_with_its_reason():
    with open(os.path.join(ROOT, "Tests", "Diagnostics", "BadExposure.swift.txt")) as file:
        source = file.read()
    done = typecheck(source)
    assert done.returncode != 0, "the bad exposure compiled"
    errors = {}
    for line, message in re.findall(r"^[^ \n]*BadExposure\.swift:(\d+):\d+: error: (.*)$", done.stderr, re.M):
        errors.setdefault(int(line), []).append(message)
    assert sorted(errors) == sorted(EXPECTED), errors
    for line, reason in EXPECTED.items():
        assert any(reason in message for message in errors[line]), (line, errors[line])


def test_the_same_file_with_its_mistakes_fixed_compiles():
    with open(os.path.join(ROOT, "Tests", "Diagnostics", "BadExposure.swift.txt")) as file:
        source = file.read()
    fixed = (source.replace('Field("id", \\.id)', 'Output("id", \\.id)')
             .replace('Field("total", \\.total)', 'Output("total", \\.total)')
             .replace("(model, name: String, extra: Int)", "(model, name: String)")
             .replace("enabled: \\.name", "enabled: \\.hasName")
             .replace("var total: Int { 3 }", "var total: Int { 3 }\n    var hasName: Bool { !name.isEmpty }"))
    done = typecheck(fixed)
    assert done.returncode == 0, done.stderr


OLD_OPT_INS = """import Bindery

// Written as an earlier README taught: both conformances are no longer needed.
enum Rating: String, CaseIterable, BinderyEnum { case notSeen, terrible, good }
struct User: Codable, BinderyCodable { var firstName: String }
enum Shade: BinderyEnum { case light, dark }
struct Note: BinderyCodable { var text: String }
"""


def test_the_old_opt_ins_compile_with_a_warning_that_they_are_no_longer_needed():
    done = typecheck(OLD_OPT_INS)
    assert done.returncode == 0, done.stderr
    warnings = re.findall(r"BadExposure\.swift:(\d+):\d+: warning: (.*)$", done.stderr, re.M)
    assert sorted({int(line) for line, _ in warnings}) == [4, 5, 6, 7], done.stderr
    assert all("no longer needed" in message for _, message in warnings), warnings
