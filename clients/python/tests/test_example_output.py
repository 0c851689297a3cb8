"""email_form.py prints from two threads (its own and the callback thread): the lines must come
out whole and in one order, every run. Merged lines here were a real bug."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import PACKAGE_ROOT

TYPING = """\
typed 'a'                  -> Email is invalid
typed 'ada'                -> Email is invalid
typed 'ada@'               -> Email is invalid
typed 'ada@example'        -> Email is invalid
typed 'ada@example.c'      -> Email is invalid
    didChange rev 1: {'isValid': True, 'validationMessage': 'Email is valid'}
typed 'ada@example.com'    -> Email is valid
    didChange rev 2: {'isValid': False, 'validationMessage': 'Email is invalid'}
typed 'ada@example.comme'  -> Email is invalid""".splitlines()
PREFIXES = ("binderyd ", "opened session ", "typed ", "    didChange rev ", "refused: ", "closed; ")


def test_email_form_prints_whole_lines_in_order(daemon_path: str) -> None:
    script = os.path.join(PACKAGE_ROOT, "examples", "email_form.py")
    for _ in range(3):
        done = subprocess.run([sys.executable, script], env=dict(os.environ, BINDERYD=daemon_path),
                              capture_output=True, text=True, timeout=40)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert all(line.startswith(PREFIXES) for line in lines), done.stdout
        assert sum(line.count(" -> ") + line.count("didChange") for line in lines) == len(TYPING), done.stdout
        assert [line for line in lines if line.startswith(("typed ", "    didChange"))] == TYPING, done.stdout
        assert [line.split(":")[0] for line in lines if line.startswith("refused")] == ["refused"] * 3
