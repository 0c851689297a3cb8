"""Every README.md in the repository has its code fences paired as its author meant.

A fence left open swallows the prose after it, and the file can still hold an even number of
fences (the next block's opening fence closes it, and its closing fence opens one): so besides
"every block is closed", a closing fence must be followed by a blank line, another fence or the
end of the file — a closing fence followed by text is an opening fence read the wrong way round.
"""
from __future__ import annotations

import re
import subprocess
from typing import List

import pytest

from conftest import REPO

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def readmes() -> List[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                             "README.md", "*/README.md"],
                            cwd=str(REPO), capture_output=True, text=True, check=True).stdout
    return sorted(set(listed.split()))


def fence_problems(text: str) -> List[str]:
    """What is wrong with the fences of a Markdown text, each with its line number."""
    lines = text.split("\n")
    problems = []
    opened = None  # (line number, fence) of the block being read
    for index, line in enumerate(lines):
        match = FENCE.match(line)
        if not match:
            continue
        fence, rest = match.group(1), match.group(2).strip()
        if opened is None:
            opened = (index + 1, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not rest:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following.strip() and not FENCE.match(following):
                problems.append("line %d: the block opened at line %d closes here, but text follows at once "
                                "(%r): is a fence missing above?" % (index + 1, opened[0], following[:60]))
            opened = None
    if opened is not None:
        problems.append("line %d: this block is never closed" % opened[0])
    return problems


def test_the_readmes_are_found() -> None:
    assert {"README.md", "clients/nvim/README.md", "clients/emacs/README.md",
            "clients/web/README.md"} <= set(readmes())


@pytest.mark.parametrize("readme", readmes())
def test_the_code_fences_are_paired(readme: str) -> None:
    assert fence_problems((REPO / readme).read_text(encoding="utf-8")) == [], readme


def test_a_fence_left_open_is_found_even_when_the_count_is_even() -> None:
    swallowed = "Screen:\n\n```\nscreen\n**Next** paragraph:\n\n```\nnext screen\n```\n\nend\n\n```\n"
    assert fence_problems(swallowed) == [
        "line 7: the block opened at line 3 closes here, but text follows at once ('next screen'): "
        "is a fence missing above?"]
    assert fence_problems("```sh\nls\n") == ["line 1: this block is never closed"]
    assert fence_problems("```sh\nls\n```\n```text\nout\n```\n") == []
