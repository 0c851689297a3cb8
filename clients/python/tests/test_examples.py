"""The examples run as they are and print what happened."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import PACKAGE_ROOT

EXAMPLES = os.path.join(PACKAGE_ROOT, "examples")

EXPECTED = {
    "email_form.py": ["typed 'ada@example.com'    -> Email is valid", "refused: ReadOnlyField"],
    "login_flow.py": ["logged in after", "The user API rejected Mallory Lovelace", "running: False"],
    "movies.py": ["saved Cats (id 3)", "sidebar now lists: Alien, Heat, Cats", "bottom bar: Random number:"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, daemon_path: str) -> None:
    env = dict(os.environ, BINDERYD=daemon_path)
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], env=env, capture_output=True,
                          text=True, timeout=40)
    assert done.returncode == 0, done.stderr
    for text in EXPECTED[name]:
        assert text in done.stdout, done.stdout
