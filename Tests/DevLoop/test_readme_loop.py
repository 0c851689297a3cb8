"""The README's developer loop, run as written: its sh block (`mkdir -p greeter && cd greeter`,
`bindery-dev --init`, `bindery-dev --product greeter`) from a folder where `greeter` holds nothing
but a build cache (the package of devloop.py: the same bindery-dev --init makes the same package,
so Bindery is compiled once for both), with this test as the client of the last command: a form
opened, a name typed, an edit saved, the new output shown with the name kept.
"""
import os
import re
import shutil
import subprocess

from devloop import DEV, PACKAGE, ROOT, DevClient, save


def readme_loop():
    text = (ROOT / "README.md").read_text()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        if "bindery-dev --init" in block:
            return block
    raise AssertionError("README.md has no sh block with bindery-dev --init")


def test_the_readme_loop_runs_as_written():
    block = readme_loop()
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len([c for c in commands if c.lstrip().startswith("bindery-dev")]) == 2, block
    # An empty folder named greeter, but for its build cache.
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for entry in PACKAGE.iterdir():
        if entry.name != ".build":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    env = dict(os.environ, PATH=os.path.dirname(DEV) + os.pathsep + os.environ["PATH"])
    # The block as a script, the last command speaking to this test over pipes.
    process = subprocess.Popen(["bash", "-e", "-c", block], cwd=PACKAGE.parent, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    client = DevClient.attach(process, skip_text=True)  # --init says what it wrote
    try:
        form = client.result("session/open", {"type": "greeting"}, timeout=300)
        assert form["state"] == {"name": "", "greeting": "Hello!"}
        session = form["session"]
        client.result("setField", {"session": session, "field": "name", "value": "Ada"})
        model = PACKAGE / "Sources" / "greeter" / "GreetingViewModel.swift"
        text = model.read_text()
        save(model, text.replace('Output("greeting", \\.greeting)',
                                 'Output("greeting", \\.greeting)\n            Output("length", \\.name.count)'))
        change, _ = client.wait_for(lambda m: m.get("method") == "didChange", 120, "didChange")
        assert change["params"]["changes"] == {"length": 3}
        client.notification("daemon/reloaded")
        assert client.result("session/state", {"session": session})["state"] == {
            "name": "Ada", "greeting": "Hello, Ada!", "length": 3}
        save(model, text)
        client.notification("daemon/reloaded")
    finally:
        stderr = client.close()
    assert process.returncode == 0, stderr
