"""Every `sh` block of clients/web/README.md runs as written from the repository root, with the
daemon under test as $BINDERYD — unless its first line is `# not run: <reason>`: then its shell
syntax is checked (the same rule as Tests/Snippets for the other READMEs)."""
from __future__ import annotations

import os
import re
import subprocess
from typing import List, Tuple

import pytest

from conftest import REPO, WEB

README = os.path.join(WEB, "README.md")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"# not run: \S")
KNOWN = {"sh", "text"}


def blocks() -> List[Tuple[int, str, str]]:
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    return [(text.count("\n", 0, match.start()) + 1, match.group(1), match.group(2)) for match in FENCE.finditer(text)]


def test_every_block_is_sh_or_text_and_some_run() -> None:
    found = blocks()
    assert all(language in KNOWN for _, language, _ in found), [(line, language) for line, language, _ in found]
    assert any(language == "sh" and not NOT_RUN.match(code) for _, language, code in found)


@pytest.mark.parametrize("line,code", [pytest.param(line, code, id="README.md:%d" % line)
                                       for line, language, code in blocks() if language == "sh"])
def test_sh_block(line: int, code: str, binderyd: str) -> None:
    if NOT_RUN.match(code):
        done = subprocess.run(["bash", "-n"], input=code, capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, done.stderr
        return
    env = {**os.environ, "BINDERYD": binderyd}
    env.pop("BINDERY_WEB_TOKEN", None)
    done = subprocess.run(["bash", "-e", "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, "README.md:%d failed (%d):\n%s\n%s" % (line, done.returncode, done.stdout, done.stderr)
    if "curl" in code:  # the session block: what its comments say
        assert done.stdout.split("\n")[:3] == ["200", "403", "403"], done.stdout
        assert "refused GET /ping: no token" in done.stdout and "cross-origin request (Origin http://evil.example)" in done.stdout


def test_every_picture_in_the_folder_is_in_the_readme_and_every_picture_it_shows_is_there() -> None:
    """A picture nobody sees, or a broken one, is a stale one: the pictures are the tests' own
    (BINDERY_WEB_SCREENSHOTS=clients/web), taken again when the page changes."""
    with open(README, encoding="utf-8") as handle:
        shown = set(re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", handle.read()))
    present = {name for name in os.listdir(WEB) if name.endswith(".png")}
    assert shown - present == set(), "the README shows pictures that are not there"
    assert present - shown == set(), "pictures the README does not show"
