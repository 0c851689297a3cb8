"""A client of this repository uses bindery-dev as its daemon, unchanged: the Python client's
session follows a reload (its state gets the new output's value) without knowing of it."""
import sys
import time

from devloop import DEV, MODEL, PACKAGE, ROOT, fixture, save

sys.path.insert(0, str(ROOT / "clients" / "python"))
from bindery import Client  # noqa: E402


def test_the_python_client_follows_a_reload():
    fixture()
    original = MODEL.read_text()
    try:
        with Client(daemon=DEV, args=["--package-path", str(PACKAGE), "--product", "greeter"]) as client:
            form = client.open("greeting")
            form.set("name", "Ada")
            assert form.state == {"name": "Ada", "greeting": "Hello, Ada!"}
            save(MODEL, original.replace("Hello, ", "Howdy, "))
            deadline = time.monotonic() + 120
            while form.state["greeting"] != "Howdy, Ada!" and time.monotonic() < deadline:
                time.sleep(0.05)
            assert form.state == {"name": "Ada", "greeting": "Howdy, Ada!"}
            form.set("name", "Grace")
            assert form.state["greeting"] == "Howdy, Grace!"
    finally:
        save(MODEL, original)
