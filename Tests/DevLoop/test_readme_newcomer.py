"""A newcomer's first hour, from README.md alone, in fresh login shells of a new user (nothing but
HOME, a bare PATH and SHELL): install, put the folder on PATH as the installer says, make a package
with `bindery-dev --init`, and reach its form in Neovim and in a browser, a name typed and the
view model's greeting shown.

Two liberties, both for time: `./scripts/install` copies this checkout's debug build (`--from`)
instead of building a release one (minutes), and `greeter` keeps the build cache of devloop.py's
package (the same `--init` makes the same package, so Bindery is compiled once for all tests).
Every command is taken from README.md's text, so the test follows the README as it is written.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devloop import DEV, PACKAGE, ROOT, nvim_drive

README = (ROOT / "README.md").read_text()
BUILD = 600  # seconds: bindery-dev's first build of the package, on a loaded machine


def sh_blocks():
    return re.findall(r"```sh\n(.*?)```", README, re.S)


def commands(block):
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]


def login_shell(home, script, cwd, runtime=None, **popen):
    """`script` in a fresh login shell of the new user; a Popen when `popen` says so. `runtime`:
    the XDG_RUNTIME_DIR of a shared daemon the script starts (else the machine's)."""
    argv = ["env", "-i", "HOME=%s" % home, "PATH=/usr/bin:/bin", "SHELL=/bin/bash", "LANG=C.UTF-8",
            *(["XDG_RUNTIME_DIR=%s" % runtime] if runtime else []), "bash", "-l", "-c", script]
    if popen:
        return subprocess.Popen(argv, cwd=str(cwd), **popen)
    return subprocess.run(argv, cwd=str(cwd), capture_output=True, text=True, timeout=BUILD)


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory):
    """A new user who has installed Bindery as the README says, and made `greeter`."""
    home = tmp_path_factory.mktemp("newcomer")
    install = [c for block in sh_blocks() for c in commands(block) if c.startswith("./scripts/install")]
    assert install and install[0] == "./scripts/install", install
    done = login_shell(home, "./scripts/install --from %s" % shlex.quote(str(Path(DEV).parent / "binderyd")), ROOT)
    assert done.returncode == 0, done.stderr
    # The installer's one step, run as printed: the folder goes on PATH for every login shell.
    step = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("echo '")]
    assert len(step) == 1, done.stdout
    assert login_shell(home, step[0], ROOT).returncode == 0
    found = login_shell(home, "command -v bindery-dev bindery-web binderyd", ROOT).stdout.split()
    assert found == [str(home / ".local" / "bin" / name) for name in ("bindery-dev", "bindery-web", "binderyd")]

    # The loop's block up to its last command (which the editor and the browser run instead).
    loop = [block for block in sh_blocks() if "bindery-dev --init" in block][0]
    first = commands(loop)[:-1]
    assert first == ["mkdir -p greeter && cd greeter", "bindery-dev --init"], first
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for entry in PACKAGE.iterdir():
        if entry.name != ".build":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    made = login_shell(home, " && ".join(first), PACKAGE.parent)
    assert made.returncode == 0, made.stderr
    assert (PACKAGE / "Sources" / "greeter" / "GreetingViewModel.swift").is_file()
    return home


def test_a_form_of_their_own_in_neovim(newcomer, tmp_path):
    setting = re.search(r"`(let g:bindery_cmd = \[[^\]]*\])` then `:(BinderyOpen greeting)`", README)
    assert setting, "README.md should say how Neovim runs bindery-dev"
    let, open_command = " ".join(setting.group(1).split()), setting.group(2)
    start = [block for block in sh_blocks() if "nvim --clean" in block][0]
    assert "nvim --clean --cmd 'set rtp+=clients/nvim'" in start
    out = tmp_path / "form.txt"
    drive = tmp_path / "drive.lua"
    # A person: opens the form, waits for it, types a name after `Name: `, waits for the greeting.
    drive.write_text(nvim_drive(out) + """vim.cmd(%r)
if not wait('^Greeting: Hello!$', %d) then return finish('no form') end
vim.fn.search('^Name:')
vim.cmd('normal! AAda')
if not wait('^Greeting: Hello, Ada!$', 60000) then return finish('no greeting') end
finish('ok')
""" % (open_command, BUILD * 1000))
    script = "nvim --clean --headless --cmd %s --cmd %s -c %s" % (
        shlex.quote("set rtp+=%s" % (ROOT / "clients" / "nvim")), shlex.quote(let), shlex.quote("luafile %s" % drive))
    done = login_shell(newcomer, script, PACKAGE)
    lines = out.read_text().splitlines() if out.exists() else ["nvim ended: %s" % done.stderr[-2000:]]
    assert lines[0] == "ok", "\n".join(lines)
    assert lines[1:] == ["== greeting ==", "Name: Ada", "Greeting: Hello, Ada!"]


def test_a_form_of_their_own_in_the_browser(newcomer):
    sys.path.append("/usr/lib/python3/dist-packages")  # Debian's python3-selenium (scripts/ensure-tools)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    block = [block for block in sh_blocks() if "bindery-web --daemon" in block][0]
    (command,) = commands(block)
    assert command == "bindery-web --daemon 'bindery-dev --product greeter'", command
    bridge = login_shell(newcomer, "exec " + command, PACKAGE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    browser = None
    try:
        url = bridge.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
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


def test_neovim_finds_the_installed_shared_daemon_before_path_has_the_folder(tmp_path):
    """Installed, the installer's line not yet added: `g:bindery_cmd = ['binderyd', '--remote',
    'auto']` (the Neovim README's) still starts, from ~/.local/bin."""
    nvim_readme = (ROOT / "clients" / "nvim" / "README.md").read_text()
    let = re.search(r"^let g:bindery_cmd = \['binderyd', '--remote', 'auto'\]$", nvim_readme, re.M).group(0)
    home, runtime = tmp_path / "home", tmp_path / "runtime"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    done = login_shell(home, "./scripts/install --from %s" % shlex.quote(str(Path(DEV).parent / "binderyd")), ROOT)
    assert done.returncode == 0 and "add this line" in done.stdout, done.stdout
    assert login_shell(home, "command -v binderyd", ROOT).returncode == 1
    out, drive = tmp_path / "form.txt", tmp_path / "drive.lua"
    drive.write_text("""
vim.cmd('BinderyOpen email')
local ok = vim.wait(30000, function() return vim.fn.search('^Valid: false$', 'nw') > 0 end, 100)
vim.fn.writefile({ ok and 'ok' or 'no form', unpack(vim.api.nvim_buf_get_lines(0, 0, -1, false)) }, %r)
vim.cmd('qa!')
""" % str(out))
    script = "nvim --clean --headless --cmd %s --cmd %s -c %s" % (
        shlex.quote("set rtp+=%s" % (ROOT / "clients" / "nvim")), shlex.quote(let), shlex.quote("luafile %s" % drive))
    try:
        ran = login_shell(home, script, tmp_path, runtime=runtime)
        lines = out.read_text().splitlines() if out.exists() else ["nvim ended: %s" % ran.stderr[-2000:]]
        assert lines[:2] == ["ok", "== email =="], "\n".join(lines)
    finally:
        # The shared daemon the forwarder started (it would exit a minute after its last client).
        socket = str(runtime / "bindery" / "daemon.sock")
        found = subprocess.run(["pgrep", "-f", "--", "--listen " + socket], capture_output=True, text=True).stdout
        for pid in found.split():
            os.kill(int(pid), signal.SIGTERM)
