"""The typed clients generated from the daemons' schemas type-check the values the daemons really
sent (issue 33: "bindery-codegen's types must accept every value the daemon sends").

bindery-codegen generates Python and TypeScript from the live binderyd and appd into a temporary
folder; every state, change set, splice and command result the daemons sent while
test_wire_schemas.py's scenarios ran (wire_scenarios.collect) is written as a literal of its
native form and assigned to its generated type (wire_checks.py); ``mypy --strict`` and ``tsc --strict`` must accept them all.
The same values against types generated from schemas doctored to leave a struct's member out
(wire_doctored.py) must be rejected, on exactly the lines whose value has that member.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

import wire_doctored
from conftest import PACKAGE_ROOT, REPO_ROOT
from wire_checks import Entry, entries, load_codegen, python_source, typescript_source
from wire_scenarios import SCENARIOS, collect

CODEGEN = os.path.join(REPO_ROOT, "clients", "codegen", "bindery-codegen")
NODE = os.path.join(REPO_ROOT, "clients", "node")
NODE_LITERALS = os.path.join(NODE, "test-support", "native-literals.js")
# As clients/node/test/typecheck.test.js runs tsc (node-shim.d.ts stands in for @types/node).
TSC_ARGS = ["--strict", "--noEmit", "--pretty", "false", "--module", "node16", "--moduleResolution", "node16",
            "--target", "es2022", "--lib", "es2022,dom", os.path.join(NODE, "test", "typecheck", "node-shim.d.ts")]
#: Per check file: the entries written into it, and the member whose values must be errors (None: none).
Checks = Dict[str, Tuple[List[Entry], Optional[str]]]


def generate(out: Path, stem: str, *source: str) -> None:
    done = subprocess.run([sys.executable, CODEGEN, *source, "--python", str(out / (stem + "_types.py")),
                           "--node", str(out / (stem.replace("_", "-") + "-types.js"))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory, daemon_path: str, appd_path: str) -> Tuple[Path, Checks]:
    """The generated modules and the check files, per daemon, from its live schemas and doctored ones."""
    out = tmp_path_factory.mktemp("wire-types")
    (out / "package.json").write_text('{ "type": "module" }\n', encoding="utf-8")
    (out / "node_modules").mkdir()
    (out / "node_modules" / "bindery-client").symlink_to(NODE, target_is_directory=True)
    codegen = load_codegen(CODEGEN)
    found: Checks = {}
    for daemon in sorted(SCENARIOS):
        path = daemon_path if daemon == "binderyd" else appd_path
        schemas, seen = collect(daemon, path)
        generate(out, daemon, "--daemon", path)
        doctored_schemas = wire_doctored.without_dropped_member(daemon, schemas)
        (out / (daemon + "-doctored.json")).write_text(json.dumps(doctored_schemas), encoding="utf-8")
        generate(out, daemon + "_doctored", "--schema", str(out / (daemon + "-doctored.json")))
        for stem, variant, dropped in [(daemon, schemas, None),
                                       (daemon + "_doctored", doctored_schemas, wire_doctored.DROPPED[daemon][1])]:
            written = entries(seen, variant, codegen)
            (out / (stem + "_values.py")).write_text(python_source(stem + "_types", written), encoding="utf-8")
            ts = stem.replace("_", "-")
            (out / (ts + "-values.ts")).write_text(typescript_source("./%s-types.js" % ts, written, NODE_LITERALS),
                                                   encoding="utf-8")
            found[stem] = (written, dropped)
    return out, found


def wrong_values(found: Checks, stem: str) -> Set[int]:
    """The values that must be errors in a check file: those with the doctored types' dropped member."""
    written, dropped = found[stem]
    key = '"%s": ' % dropped
    return {number for number, entry in enumerate(written) if dropped and key in json.dumps(entry.seen.value)}


def rejected(out: Path, errors: List[Tuple[str, int]]) -> Dict[str, Set[int]]:
    """Per check file, the values (value_N / valueN, one per line) with an error."""
    found: Dict[str, Set[int]] = {}
    for name, line in errors:
        text = (out / name).read_text(encoding="utf-8").splitlines()[line - 1]
        number = re.match(r"(?:export const )?value_?(\d+)", text)
        found.setdefault(name, set()).add(int(number.group(1)) if number else -line)  # -line: not a value's
    return found


def test_mypy_strict_accepts_every_value_sent(checks: Tuple[Path, Checks]) -> None:
    out, found = checks
    try:
        import mypy  # noqa: F401
    except ImportError:  # a failure, not a skip (as test_codegen.py): the test command installs mypy
        pytest.fail("mypy is not installed: run scripts/ensure-tools (or pip install mypy)")
    files = sorted("%s_values.py" % stem for stem in found)
    env = dict(os.environ, MYPYPATH=os.pathsep.join([str(out), PACKAGE_ROOT]))
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--no-error-summary",
                           "--show-error-codes", "--cache-dir", str(out / ".mypy-cache"), *files],
                          cwd=out, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    errors = [(name, int(line)) for name, line in re.findall(r"^(\S+?\.py):(\d+): error:", output, re.M)]
    expected = {"%s_values.py" % stem: wrong_values(found, stem) for stem in found if found[stem][1]}
    assert all(expected.values()), "no value has the doctored types' dropped member: the check would prove nothing"
    assert rejected(out, errors) == expected, "mypy --strict's errors are not those of the doctored types:\n" + output


def test_tsc_strict_accepts_every_value_sent(checks: Tuple[Path, Checks]) -> None:
    out, found = checks
    tsc = shutil.which("tsc")
    assert tsc, "tsc is not on PATH: run scripts/ensure-tools (Debian: apt-get install node-typescript)"
    files = sorted("%s-values.ts" % stem.replace("_", "-") for stem in found)
    done = subprocess.run([tsc, *TSC_ARGS, *files], cwd=out, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    errors = [(name, int(line)) for name, line in re.findall(r"^(\S+?\.ts)\((\d+),\d+\): error", output, re.M)]
    expected = {"%s-values.ts" % stem.replace("_", "-"): wrong_values(found, stem) for stem in found if found[stem][1]}
    assert all(expected.values()), "no value has the doctored types' dropped member: the check would prove nothing"
    assert rejected(out, errors) == expected, "tsc --strict's errors are not those of the doctored types:\n" + output
