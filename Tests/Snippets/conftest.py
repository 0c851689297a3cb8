"""Fixtures of the snippets suite: the daemon under test, and a sandbox outside the repository.

The sandbox (one per test session) holds:
- ``home``: a HOME whose ``.local/bin/binderyd`` is a copy of the daemon under test (where
  ``scripts/install`` would put it);
- ``venv``: a virtual environment with the Python client pip-installed, as a user would;
- ``node_project``: a folder where ``npm install <repo>/clients/node`` was done;
- ``repo``: a copy of the repository's sources (no build, no git), the working folder of the
  ``sh`` snippets, which say "from the repository root";
- ``stubs``: a ``swift`` that fails at once, first on the snippets' PATH, so that a snippet that
  should have been marked ``# not run:`` can never start a Swift build.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL_HOME = Path(os.path.expanduser("~"))
SETUP_TIMEOUT = 300  # pip may download its build backend on a machine that has no cache yet

# What the sandbox copy of the repository leaves out.
IGNORED = shutil.ignore_patterns(".git", ".build", ".build-*", ".build_*", "node_modules", "build",
                                 "*.egg-info", "__pycache__", ".pytest_cache", ".swiftpm")
COPIED = ["clients", "scripts", "Examples", "Package.swift", "README.md", "protocol.md",
          "RELIABILITY.md", "BENCHMARKS.md"]


def daemon_under_test() -> str:
    """$BINDERYD, else the repository's build (release, then debug), else binderyd on PATH."""
    from_env = os.environ.get("BINDERYD")
    if from_env:
        if not (os.path.isfile(from_env) and os.access(from_env, os.X_OK)):
            pytest.fail("BINDERYD=%s is not an executable file" % from_env, pytrace=False)
        return os.path.abspath(from_env)
    for candidate in (REPO / ".build" / "release" / "binderyd", REPO / ".build" / "debug" / "binderyd"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which("binderyd")
    if on_path:
        return on_path
    pytest.fail("no daemon to test: set BINDERYD=/path/to/binderyd, or build it (swift build)", pytrace=False)


def run(argv: List[str], *, cwd: Path, env: Optional[Dict[str, str]] = None,
        timeout: float = SETUP_TIMEOUT) -> "subprocess.CompletedProcess[str]":
    """Runs a setup step; fails the session with its output if it fails."""
    done = subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        pytest.fail("%s failed (exit %d) in %s:\n%s\n%s" % (" ".join(argv), done.returncode, cwd,
                                                             done.stdout[-4000:], done.stderr[-4000:]),
                    pytrace=False)
    return done


@dataclass
class Sandbox:
    root: Path
    daemon: str
    home: Path
    venv: Path
    node_project: Path
    repo: Path
    stubs: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def env(self, **extra: str) -> Dict[str, str]:
        """The environment every snippet runs in."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "NODE_PATH", "NODE_OPTIONS")}
        env.update(
            BINDERYD=self.daemon,
            HOME=str(self.home),
            PATH=os.pathsep.join([str(self.stubs), str(self.venv / "bin"), os.environ.get("PATH", os.defpath)]),
            PIP_DISABLE_PIP_VERSION_CHECK="1",
            # Another HOME, the same caches: pip and npm need not download again.
            XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME", str(REAL_HOME / ".cache")),
            npm_config_cache=os.environ.get("npm_config_cache", str(REAL_HOME / ".npm")),
            npm_config_registry="http://127.0.0.1:9/",  # no registry: npm steps must work offline
            npm_config_update_notifier="false",
            npm_config_fund="false",
            # A shared daemon a snippet starts (Client(socket="auto")) lives here, not in the
            # machine's /tmp/bindery-UID, and is stopped when the snippets are done.
            XDG_RUNTIME_DIR=str(self.root / "runtime"),
        )
        env.update(extra)
        return env


def copy_sources(destination: Path) -> None:
    destination.mkdir(parents=True)
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=IGNORED, symlinks=True)
        elif source.exists():
            shutil.copy2(source, destination / name)


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    root = tmp_path_factory.mktemp("snippets")
    daemon = daemon_under_test()

    home = root / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    shutil.copy2(daemon, home / ".local" / "bin" / "binderyd")

    stubs = root / "stubs"
    stubs.mkdir()
    (stubs / "swift").write_text('#!/bin/sh\necho "swift: not run by the snippets test; mark the block'
                                 ' \\`# not run: <reason>\\`" >&2\nexit 97\n')
    (stubs / "swift").chmod(0o755)

    repo = root / "repo"
    copy_sources(repo)

    box = Sandbox(root=root, daemon=daemon, home=home, venv=root / "venv", node_project=root / "node-project",
                  repo=repo, stubs=stubs)
    env = box.env()

    # The Python client, pip-installed into a venv as a user would: from a clean copy of
    # clients/python (pip builds in the source folder; the repository stays untouched).
    venv.EnvBuilder(with_pip=True, symlinks=True).create(str(box.venv))
    package = root / "python-package"
    shutil.copytree(REPO / "clients" / "python", package, ignore=IGNORED)
    run([str(box.python), "-m", "pip", "install", "--quiet", str(package)], cwd=root, env=env)

    # The Node client, npm-installed from the repository into a project folder, with no registry
    # reachable (see env()): the install must not need one.
    box.node_project.mkdir()
    run(["npm", "install", str(REPO / "clients" / "node")], cwd=box.node_project, env=env)

    (root / "runtime").mkdir(mode=0o700)
    yield box
    # A shared daemon a snippet started (it would exit a minute after its last client).
    shared = str(root / "runtime" / "bindery" / "daemon.sock")
    found = subprocess.run(["pgrep", "-f", "--", "--listen " + shared], capture_output=True, text=True).stdout
    for pid in found.split():
        os.kill(int(pid), 15)
    shutil.rmtree(root, ignore_errors=True)

