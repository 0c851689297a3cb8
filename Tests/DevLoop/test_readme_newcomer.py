"""A newcomer's first hour, from README.md alone, in fresh login shells of a new user: install, put
the folder on PATH as the installer says, make a package with `bindery-dev --init` in a folder of
their home (outside the checkout), and reach its form in Neovim and in a browser, a name typed and
the view model's greeting shown — each command taken from README.md's text and run as written.
Then the same forms again before the installer's PATH line is added (README: "Both work before").

The login shell: `env -i` with HOME, a bare PATH, SHELL, LANG, USER, LOGNAME and TERM, then `bash
-l` (which reads /etc/profile, as a login does). No XDG_RUNTIME_DIR: a login without pam_systemd
(ssh into a container, a console) has none; nothing on this path needs one (the editor and the page
run bindery-dev over pipes).

What the test adds to the README's commands: Neovim's `--headless` and a script that types (a
person's keys), Chromium headless (a person's browser). Two liberties, both for time:
`./scripts/install` copies this checkout's debug build (`--from`) instead of building a release one
(minutes), and the home is a folder of the temporary directory kept between runs, emptied each time
but for `greeter/.build` (SwiftPM's build of Bindery in the package: cold, 35 s here when the machine is idle).
"""
import getpass
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from devloop import DEV, ROOT, nvim_drive

README = (ROOT / "README.md").read_text()
BUILD = 900  # seconds: bindery-dev's first build of the package (Bindery, cold), on a loaded machine
# The newcomers' homes, one folder per checkout (two clones' tests do not share one).
SCRATCH = Path(tempfile.gettempdir()) / ("bindery-newcomer-%d-%s" % (
    os.getuid(), hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]))


def sh_blocks():
    return re.findall(r"```sh\n(.*?)```", README, re.S)


def commands(block):
    """A block's commands as a person copies them: comment lines and trailing comments left out."""
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]


def readme_command(start):
    """The command of README.md's sh blocks that starts with `start` (the same wherever it is said)."""
    found = {command for block in sh_blocks() for command in commands(block) if command.startswith(start)}
    assert len(found) == 1, (start, found)
    return found.pop()


def login_shell(home, script, cwd, **popen):
    """`script` in a fresh login shell of the new user; a Popen when `popen` says so."""
    argv = ["env", "-i", "HOME=%s" % home, "PATH=/usr/bin:/bin", "SHELL=/bin/bash", "LANG=C.UTF-8",
            "USER=%s" % getpass.getuser(), "LOGNAME=%s" % getpass.getuser(), "TERM=xterm-256color",
            "bash", "-l", "-c", script]
    if popen:
        return subprocess.Popen(argv, cwd=str(cwd), **popen)
    return subprocess.run(argv, cwd=str(cwd), capture_output=True, text=True, timeout=BUILD)


def install(home):
    """README.md's `./scripts/install`, in the checkout (the newcomer's clone), from the debug build."""
    assert readme_command("./scripts/install") == "./scripts/install"
    done = login_shell(home, "./scripts/install --from %s" % shlex.quote(str(Path(DEV).parent / "binderyd")), ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def fresh_home(name):
    """An empty home in SCRATCH, but for its `greeter/.build` (the package's build cache)."""
    home = SCRATCH / name
    home.mkdir(parents=True, exist_ok=True)
    for entry in home.iterdir():
        if entry.name == "greeter":
            for inner in entry.iterdir():
                if inner.name != ".build":
                    shutil.rmtree(inner) if inner.is_dir() and not inner.is_symlink() else inner.unlink()
        else:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    return home


@pytest.fixture(scope="module")
def newcomer():
    """A new user who has installed Bindery as the README says, added the installer's line, and
    made `greeter` in their home as the README's loop says: (home, the package's folder)."""
    home = fresh_home("home")
    said = install(home)
    # The installer's one step, run as printed: the folder goes on PATH for every login shell.
    step = [line.strip() for line in said.splitlines() if line.strip().startswith("echo '")]
    assert len(step) == 1, said
    assert login_shell(home, step[0], home).returncode == 0
    found = login_shell(home, "command -v bindery-dev bindery-web binderyd", home).stdout.split()
    assert found == [str(home / ".local" / "bin" / name) for name in ("bindery-dev", "bindery-web", "binderyd")]

    # The loop's block up to its last command (which the editor and the browser run instead).
    loop = [block for block in sh_blocks() if "bindery-dev --init" in block][0]
    first = commands(loop)[:-1]
    assert first == ["mkdir -p greeter && cd greeter", "bindery-dev --init"], first
    made = login_shell(home, " && ".join(first), home)
    assert made.returncode == 0, made.stderr
    package = home / "greeter"
    assert (package / "Sources" / "greeter" / "GreetingViewModel.swift").is_file()
    return home, package


def greet_in_neovim(home, package, tmp_path):
    """README.md's Neovim command for the loop, run as written in the package's folder (plus
    --headless, and a script typing as a person would): the form, a name, its greeting."""
    command = readme_command("nvim --cmd ")
    assert "bindery-dev" in command and "BinderyOpen greeting" in command, command
    out, drive = tmp_path / "form.txt", tmp_path / "drive.lua"
    drive.write_text(nvim_drive(out) + """
if vim.fn.exists(':BinderyOpen') ~= 2 then return finish('no :BinderyOpen: ' .. vim.v.errmsg) end
if not wait('^Greeting: Hello!$', %d) then return finish('no form') end
vim.fn.search('^Name:')
vim.cmd('normal! AAda')
if not wait('^Greeting: Hello, Ada!$', 60000) then return finish('no greeting') end
finish('ok')
""" % (BUILD * 1000))
    script = "%s -c %s" % (command.replace("nvim ", "nvim --headless ", 1), shlex.quote("luafile %s" % drive))
    done = login_shell(home, script, package)
    lines = out.read_text().splitlines() if out.exists() else ["nvim ended: %s" % done.stderr[-2000:]]
    assert lines[0] == "ok", "\n".join(lines)
    assert lines[1:] == ["== greeting ==", "Name: Ada", "Greeting: Hello, Ada!"]


def greet_in_the_browser(home, package, command):
    """bindery-web started by `command` in the package's folder; its printed URL, then #/greeting
    (as the README says), in headless Chromium: the form, a name, its greeting."""
    sys.path.insert(0, str(ROOT / "clients" / "web" / "test"))
    from conftest import start_chromium
    from selenium.webdriver.support.ui import WebDriverWait

    bridge = login_shell(home, "exec " + command, package, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    browser = None
    try:
        url = bridge.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        browser = start_chromium()
        browser.get(url + "#/greeting")  # "open the URL it prints, then #/greeting"
        form = WebDriverWait(browser, BUILD, 0.2).until(
            lambda d: d.find_element("css selector", "section.form[data-type='greeting'][data-state='open']"))
        form.find_element("name", "name").send_keys("Ada")
        greeting = form.find_element("css selector", "[data-member='greeting']")
        WebDriverWait(browser, 60, 0.1).until(lambda _: greeting.text == "Hello, Ada!")
    finally:
        if browser is not None:
            browser.quit()
        os.killpg(bridge.pid, signal.SIGTERM)  # bindery-web: it ends its bindery-dev, which ends its daemon
        bridge.wait(timeout=30)


def test_a_form_of_their_own_in_neovim(newcomer, tmp_path):
    greet_in_neovim(*newcomer, tmp_path)


def test_a_form_of_their_own_in_the_browser(newcomer):
    command = readme_command("bindery-web --daemon")
    assert command == "bindery-web --daemon 'bindery-dev --product greeter'", command
    greet_in_the_browser(*newcomer, command)


def test_the_readmes_emacs_start_from_any_folder(newcomer, tmp_path):
    """README.md's Emacs command as written, from a folder that is not the checkout (in batch, not
    -nw, and opening email for the person who would pick it): the installed package's form."""
    home, _ = newcomer
    command = readme_command("emacs -nw -Q ")
    assert command.endswith(" -f bindery-open"), command
    out = tmp_path / "form.txt"
    lisp = """(let ((form (bindery-open "email")))
  (with-timeout (60 nil)
    (while (not (string-match-p "Valid" (with-current-buffer form (buffer-string))))
      (accept-process-output nil 0.1)))
  (let ((text (with-current-buffer form (buffer-substring-no-properties (point-min) (point-max)))))
    (with-temp-file %s (insert text)))
  (bindery-shutdown))""" % json.dumps(str(out))
    script = command.replace("emacs -nw ", "emacs --batch ", 1).replace(" -f bindery-open", " --eval " + shlex.quote(lisp))
    done = login_shell(home, script, tmp_path)
    assert out.exists(), done.stderr[-2000:]
    assert "email" in out.read_text() and "Valid" in out.read_text(), out.read_text()


def test_before_the_path_line_neovim_and_bindery_web_find_bindery_dev(newcomer, tmp_path):
    """Another new user, installed but without the installer's line: the README's Neovim command
    as written, and bindery-web started from ~/.local/bin (README: "Both work before the
    installer's PATH line is added"), each running `bindery-dev` by name, reach the form."""
    _, package = newcomer
    home = fresh_home("home-before-path")
    said = install(home)
    assert "add this line" in said, said
    assert login_shell(home, "command -v bindery-dev", home).returncode == 1
    assert re.search(r"then start bindery-web as\s+`~/\.local/bin/bindery-web`", README)
    greet_in_neovim(home, package, tmp_path)
    greet_in_the_browser(home, package, "~/.local/bin/" + readme_command("bindery-web --daemon"))


def test_neovim_finds_the_installed_shared_daemon_before_path_has_the_folder(tmp_path):
    """Installed, the installer's line not yet added: `g:bindery_cmd = ['binderyd', '--remote',
    'auto']` (the Neovim README's) still starts, from ~/.local/bin, in the installed plugin."""
    nvim_readme = (ROOT / "clients" / "nvim" / "README.md").read_text()
    let = re.search(r"^let g:bindery_cmd = \['binderyd', '--remote', 'auto'\]$", nvim_readme, re.M).group(0)
    home = fresh_home("home-shared")
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    assert "add this line" in install(home)
    assert login_shell(home, "command -v binderyd", home).returncode == 1
    out, drive = tmp_path / "form.txt", tmp_path / "drive.lua"
    drive.write_text("""
vim.cmd('BinderyOpen email')
local ok = vim.wait(30000, function() return vim.fn.search('^Valid: false$', 'nw') > 0 end, 100)
vim.fn.writefile({ ok and 'ok' or 'no form', unpack(vim.api.nvim_buf_get_lines(0, 0, -1, false)) }, %r)
vim.cmd('qa!')
""" % str(out))
    # Here the shared daemon's folder is the test's own (a login with XDG_RUNTIME_DIR), to stop it after.
    script = "XDG_RUNTIME_DIR=%s nvim --headless --cmd %s -c %s" % (
        shlex.quote(str(runtime)), shlex.quote(let), shlex.quote("luafile %s" % drive))
    try:
        ran = login_shell(home, script, tmp_path)
        lines = out.read_text().splitlines() if out.exists() else ["nvim ended: %s" % ran.stderr[-2000:]]
        assert lines[:2] == ["ok", "== email =="], "\n".join(lines)
    finally:
        # The shared daemon the forwarder started (it would exit a minute after its last client).
        socket = str(runtime / "bindery" / "daemon.sock")
        found = subprocess.run(["pgrep", "-f", "--", "--listen " + socket], capture_output=True, text=True).stdout
        for pid in found.split():
            os.kill(int(pid), signal.SIGTERM)


def prebuild():
    """scripts/test's build lane: the package the newcomer will make, made and built as bindery-dev
    builds it, so that the suite finds Bindery compiled in it (a cold build, outside its time)."""
    package = fresh_home("home") / "greeter"
    package.mkdir(exist_ok=True)
    subprocess.run([DEV, "--init"], cwd=str(package), check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["swift", "build", "--package-path", str(package), "--product", "greeter"], check=True)


if __name__ == "__main__":
    prebuild()  # python3 Tests/DevLoop/test_readme_newcomer.py
