"""scripts/install, and both clients finding binderyd when installed outside the repository.

scripts/install's normal path runs `swift build -c release --product binderyd` (too slow for a
test); ``--from PATH`` copies an existing binary instead, and everything after the build is the
same code, tested here.
"""
from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict

import pytest

from conftest import REPO, Sandbox, run

INSTALL = str(REPO / "scripts" / "install")


def install(sandbox: Sandbox, *args: str, env: Dict[str, str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([INSTALL, "--from", sandbox.daemon, *args], env=env, capture_output=True, text=True,
                          timeout=60)


def clean_env(sandbox: Sandbox, home: Path, tmp_path: Path) -> Dict[str, str]:
    """No BINDERYD, and a PATH with python, node and the shell tools but no binderyd."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    node = shutil.which("node")
    assert node is not None
    if not (tools / "node").exists():
        (tools / "node").symlink_to(node)
    path = os.pathsep.join([str(sandbox.venv / "bin"), str(tools), "/usr/bin", "/bin"])
    assert shutil.which("binderyd", path=path) is None, "a binderyd on %s would hide what is tested" % path
    env = {k: v for k, v in sandbox.env().items() if k != "BINDERYD"}
    env.update(HOME=str(home), PATH=path)
    return env


def test_install_from_copies_into_the_prefix_and_says_whether_it_is_on_path(sandbox: Sandbox, tmp_path: Path) -> None:
    env = dict(sandbox.env(), PATH="/usr/bin:/bin")
    done = install(sandbox, "--prefix", str(tmp_path / "prefix"), env=env)
    assert done.returncode == 0, done.stderr
    target = tmp_path / "prefix" / "bin" / "binderyd"
    assert target.is_file() and not target.is_symlink() and os.access(target, os.X_OK)
    assert filecmp.cmp(target, sandbox.daemon, shallow=False)
    assert "installed binderyd " in done.stdout and str(target) in done.stdout
    assert "is not on PATH" in done.stdout and 'export PATH="%s:$PATH"' % target.parent in done.stdout

    # Again, with the folder on PATH, while a daemon runs from the installed file.
    running = subprocess.Popen([str(target)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        again = install(sandbox, "--prefix", str(tmp_path / "prefix"),
                        env=dict(env, PATH="%s:/usr/bin:/bin" % target.parent))
        assert again.returncode == 0, again.stderr
        assert "is on PATH: `binderyd` runs it" in again.stdout
        # What install puts there, and no staging file left behind.
        assert not [name for name in os.listdir(target.parent) if name.startswith(".")]
        assert "binderyd" in os.listdir(target.parent)
    finally:
        running.communicate(b"", timeout=10)
    assert running.returncode == 0


def test_install_copies_bindery_dev_and_bindery_replay_from_beside_binderyd(sandbox: Sandbox, tmp_path: Path) -> None:
    source = tmp_path / "built"
    source.mkdir()
    shutil.copy2(sandbox.daemon, source / "binderyd")
    dev = Path(sandbox.daemon).parent / "bindery-dev"
    assert dev.exists(), "no bindery-dev beside %s: build it (swift build --product bindery-dev)" % sandbox.daemon
    shutil.copy2(dev, source / "bindery-dev")
    replay = Path(sandbox.daemon).parent / "bindery-replay"
    assert replay.exists(), "no bindery-replay beside %s: build it (swift build --product bindery-replay)" % sandbox.daemon
    shutil.copy2(replay, source / "bindery-replay")
    done = subprocess.run([INSTALL, "--from", str(source / "binderyd"), "--prefix", str(tmp_path / "prefix")],
                          env=dict(sandbox.env(), PATH="/usr/bin:/bin"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    installed = tmp_path / "prefix" / "bin" / "bindery-dev"
    assert filecmp.cmp(installed, dev, shallow=False)
    assert "installed bindery-dev " in done.stdout
    assert filecmp.cmp(tmp_path / "prefix" / "bin" / "bindery-replay", replay, shallow=False)
    assert "installed bindery-replay " in done.stdout


def test_install_defaults_to_home_local_bin(sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = install(sandbox, env=dict(sandbox.env(), HOME=str(home), PATH="/usr/bin:/bin"))
    assert done.returncode == 0, done.stderr
    assert (home / ".local" / "bin" / "binderyd").is_file()
    assert str(home / ".local" / "bin" / "binderyd") in done.stdout


def test_install_puts_the_editor_plugins_where_the_editors_find_them(sandbox: Sandbox, tmp_path: Path) -> None:
    """Neovim's as a package of its own site folder (loaded with no configuration), Emacs's in a
    site-lisp folder; a second install replaces each folder whole (nothing stale stays)."""
    home = tmp_path / "home"
    env = dict(sandbox.env(), HOME=str(home), PATH="/usr/bin:/bin")
    env.pop("XDG_DATA_HOME", None)
    assert install(sandbox, env=env).returncode == 0
    nvim = home / ".local" / "share" / "nvim" / "site" / "pack" / "bindery" / "start" / "bindery"
    emacs = home / ".local" / "share" / "emacs" / "site-lisp" / "bindery"
    for name in ("plugin/bindery.lua", "lua/bindery/init.lua", "doc/bindery.txt", "doc/tags"):
        assert filecmp.cmp(nvim / name, REPO / "clients" / "nvim" / name, shallow=False), name
    assert sorted(path.name for path in emacs.iterdir()) == sorted(
        path.name for path in (REPO / "clients" / "emacs").glob("*.el"))
    (nvim / "lua" / "bindery" / "gone.lua").write_text("-- a file an older Bindery had\n")
    again = install(sandbox, "--prefix", str(home / ".local"), env=env)
    assert again.returncode == 0 and not (nvim / "lua" / "bindery" / "gone.lua").exists()
    assert "installed the Neovim plugin to %s" % nvim in again.stdout
    assert not [path.name for path in nvim.parent.iterdir() if path.name.startswith(".")]


def test_install_refuses_what_is_not_binderyd(sandbox: Sandbox, tmp_path: Path) -> None:
    env = dict(sandbox.env(), HOME=str(tmp_path))
    for source in ("/bin/true", str(tmp_path / "missing")):
        done = subprocess.run([INSTALL, "--from", source], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "install: " in done.stderr
    assert not (tmp_path / ".local").exists()
    done = subprocess.run([INSTALL, "--bogus"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown argument" in done.stderr


PYTHON_PROBE = """
import json, bindery
from bindery import Client, DaemonNotFound
try:
    with Client() as client:
        form = client.open("email")
        form.set("email", "a@b.co")
        print(json.dumps({"package": bindery.__file__, "daemon": client.daemon_path, "valid": form.state["isValid"]}))
except DaemonNotFound as error:
    print(json.dumps({"package": bindery.__file__, "error": str(error)}))
"""

NODE_PROBE = """
import { Client, DaemonNotFoundError } from 'bindery-client';
try {
  const client = await Client.spawn();
  const form = await client.open('email');
  await form.set('email', 'a@b.co');
  console.log(JSON.stringify({ daemon: client.process.spawnfile, valid: form.state.isValid }));
  await client.close();
} catch (error) {
  if (!(error instanceof DaemonNotFoundError)) throw error;
  console.log(JSON.stringify({ error: error.message }));
}
"""


def probe(argv: list, cwd: Path, env: Dict[str, str]) -> Dict[str, str]:
    done = run(argv, cwd=cwd, env=env, timeout=60)
    result: Dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_installed_python_client_finds_binderyd_in_home_local_bin(sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = clean_env(sandbox, home, tmp_path)
    assert install(sandbox, env=env).returncode == 0
    script = tmp_path / "probe.py"
    script.write_text(PYTHON_PROBE)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    found = probe([str(sandbox.python), str(script)], cwd, env)
    assert not found["package"].startswith(str(REPO)), found  # the pip-installed copy, not the repository's
    assert found == dict(found, daemon=str(home / ".local" / "bin" / "binderyd"), valid=True)


def test_the_installed_python_client_says_to_run_scripts_install(sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    script = tmp_path / "probe.py"
    script.write_text(PYTHON_PROBE)
    message = probe([str(sandbox.python), str(script)], tmp_path, clean_env(sandbox, home, tmp_path))["error"]
    assert "./scripts/install" in message
    assert "- %s: does not exist" % (home / ".local" / "bin" / "binderyd") in message
    assert ".build" not in message  # an installed copy has no repository next to it


def test_the_node_client_finds_binderyd_in_home_local_bin(sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = clean_env(sandbox, home, tmp_path)
    assert install(sandbox, env=env).returncode == 0
    script = sandbox.node_project / "probe-found.mjs"
    script.write_text(NODE_PROBE)
    assert probe(["node", str(script)], sandbox.node_project, env) == {
        "daemon": str(home / ".local" / "bin" / "binderyd"), "valid": True}


def test_a_copied_node_client_says_to_run_scripts_install(sandbox: Sandbox, tmp_path: Path) -> None:
    # A copy, not npm's usual link: a link resolves into the repository, whose build may be found.
    project = tmp_path / "project"
    project.mkdir()
    env = clean_env(sandbox, tmp_path / "empty-home", tmp_path)
    run(["npm", "install", "--install-links", str(REPO / "clients" / "node")], cwd=project, env=env)
    assert not (project / "node_modules" / "bindery-client").is_symlink()
    script = project / "probe.mjs"
    script.write_text(NODE_PROBE)
    message = probe(["node", str(script)], project, env)["error"]
    assert "./scripts/install" in message
    assert "%s: does not exist" % (tmp_path / "empty-home" / ".local" / "bin" / "binderyd") in message
    assert ".build" not in message


@pytest.mark.parametrize("readme", ["README.md", "clients/python/README.md", "clients/node/README.md"])
def test_the_readmes_name_scripts_install_and_node_20(readme: str) -> None:
    text = (REPO / readme).read_text(encoding="utf-8")
    assert "./scripts/install" in text, "%s should say how to install binderyd" % readme
    if readme != "clients/python/README.md":
        assert "Node 20" in text and "Node 18" not in text, readme


def login_shell(home: Path, script: str, shell: str = "/bin/bash") -> "subprocess.CompletedProcess[str]":
    """`script` in a fresh login shell of a new user: nothing but HOME, a bare PATH and SHELL."""
    return subprocess.run(["env", "-i", "HOME=%s" % home, "PATH=/usr/bin:/bin", "SHELL=%s" % shell,
                           "bash", "-l", "-c", script], capture_output=True, text=True, timeout=60)


def test_a_new_user_is_told_the_line_and_the_file_and_then_runs_the_programs_by_name(
        sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    installed = home / ".local" / "bin"
    before = login_shell(home, "bindery-dev --version")
    assert before.returncode == 127 and "command not found" in before.stderr  # what the issue met
    done = login_shell(home, "%s --from %s" % (INSTALL, sandbox.daemon))
    assert done.returncode == 0, done.stderr
    line = 'export PATH="%s:$PATH"' % installed
    assert ("%s is not on PATH. The Bindery clients, editors and bindery-web look there anyway;\n"
            "to run `binderyd`, `bindery-dev` and `bindery-web` by name, add this line to %s:\n\n    %s\n"
            % (installed, home / ".profile", line)) in done.stdout, done.stdout
    # The one step it prints, run as printed; then every new login shell finds the programs.
    step = [text.strip() for text in done.stdout.splitlines() if text.strip().startswith("echo '")]
    assert step == ["echo '%s' >> %s && %s" % (line, home / ".profile", line)], done.stdout
    now = login_shell(home, step[0] + " && bindery-dev --version")
    assert now.returncode == 0 and now.stdout.startswith("bindery-dev "), now.stderr
    after = login_shell(home, "command -v binderyd bindery-dev bindery-web && bindery-web --help >/dev/null")
    assert after.returncode == 0, after.stderr
    assert after.stdout.split() == [str(installed / name) for name in ("binderyd", "bindery-dev", "bindery-web")]
    again = login_shell(home, "%s --from %s" % (INSTALL, sandbox.daemon))
    assert "is on PATH: `binderyd` runs it" in again.stdout and "add this line" not in again.stdout


def test_the_line_goes_to_the_file_the_users_shell_reads(sandbox: Sandbox, tmp_path: Path) -> None:
    for shell, existing, expected in (("/bin/bash", ".bash_profile", ".bash_profile"), ("/bin/zsh", None, ".zprofile"),
                                      ("/bin/sh", None, ".profile")):
        home = tmp_path / shell.rsplit("/", 1)[1]
        home.mkdir()
        if existing:
            (home / existing).write_text("# mine\n")
        done = login_shell(home, "%s --from %s" % (INSTALL, sandbox.daemon), shell=shell)
        assert done.returncode == 0, done.stderr
        assert "add this line to %s:" % (home / expected) in done.stdout, (shell, done.stdout)
    home = tmp_path / "fish"
    home.mkdir()
    done = login_shell(home, "%s --from %s" % (INSTALL, sandbox.daemon), shell="/usr/bin/fish")
    assert ("add this line to %s:\n\n    fish_add_path %s\n" % (home / ".config" / "fish" / "config.fish",
                                                             home / ".local" / "bin")) in done.stdout
