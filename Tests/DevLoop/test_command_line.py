"""bindery-dev's command line as a new user meets it: typed in a terminal it says what it is for;
--product may be left out when the package has one executable product; a folder that is not a
package is refused at once; one version for the whole project."""
import os
import pty
import subprocess

from devloop import DEV, PACKAGE, ROOT, DevClient, fixture


def test_typed_in_a_terminal_it_says_it_is_an_editors_daemon_command():
    fixture()
    primary, secondary = pty.openpty()
    process = subprocess.Popen([DEV, "--package-path", str(PACKAGE), "--product", "greeter"],
                               stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(secondary)
    try:
        first = process.stderr.readline().decode()
    finally:
        os.close(primary)  # the end of its input: it ends once its build is done
        process.wait(timeout=600)
    assert first.startswith("bindery-dev: speaks JSON-RPC on stdin and stdout for an editor or a client, not for typing")
    assert "g:bindery_cmd = ['bindery-dev', '--package-path', '%s', '--product', 'greeter']" % PACKAGE in first
    assert "bindery-command" in first and first.count("\n") == 1


def test_pipes_are_not_told():
    client = DevClient()
    try:
        client.result("session/open", {"type": "greeting"})
    finally:
        stderr = client.close()
    assert "not for typing" not in stderr


def test_the_product_may_be_left_out_when_the_package_has_one():
    fixture()
    process = subprocess.Popen([DEV, "--package-path", str(PACKAGE)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    client = DevClient.attach(process)
    try:
        assert client.result("session/open", {"type": "greeting"})["state"] == {"name": "", "greeting": "Hello!"}
    finally:
        client.close()
    assert process.returncode == 0


def run(*arguments):
    return subprocess.run([DEV, *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_several_products_are_named_when_none_is_given():
    done = run("--package-path", str(ROOT))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("bindery-dev: which product? --product NAME names one of the package's executable products")
    assert "appd" in done.stderr and "binderyd" in done.stderr and "counterd" in done.stderr


def test_a_folder_that_is_not_a_package_is_refused_at_start(tmp_path):
    missing = run("--package-path", str(tmp_path / "nowhere"), "--product", "greeter")
    assert (missing.returncode, missing.stderr) == (2, "bindery-dev: --package-path %s: no such folder\n" % (tmp_path / "nowhere"))
    empty = run("--package-path", str(tmp_path), "--product", "greeter")
    assert empty.returncode == 2 and "holds no Package.swift" in empty.stderr


def test_one_version_for_the_project():
    binderyd = os.environ.get("BINDERYD", str(ROOT / ".build" / "debug" / "binderyd"))
    daemon = subprocess.run([binderyd, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    dev = run("--version").stdout.strip()
    assert daemon.startswith("binderyd ") and dev == "bindery-dev " + daemon.split(" ")[1]
