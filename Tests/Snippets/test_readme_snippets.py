"""Every fenced code block of the READMEs runs as written, to completion, outside the repository.

    python3 -m pytest Tests/Snippets -q          (BINDERYD=/path/to/binderyd to choose the daemon)

Each block of each file in README_FILES is one test, named ``FILE:LINE:LANGUAGE``. What happens
to a block depends on its fence's language:

- ``python``: saved as a file and run by the python of a virtual environment where the client was
  pip-installed, from an empty temporary folder. A block whose first line is
  ``# PYTHONPATH=clients/python`` runs with this interpreter and PYTHONPATH at the repository's
  clients/python instead, for a README that says to run without installing.
- ``js``: saved as an .mjs file in a temporary project folder where
  ``npm install <repo>/clients/node`` was done, and run with node (20 or later).
- ``sh``: run with ``bash -e`` from the root of a copy of the repository's sources, unless its
  first line is ``# not run: <reason>`` (then it is only checked: its shell syntax, and that every
  ``./script`` it starts exists and is executable). Mark so what
  builds with Swift, takes minutes, or needs what a test machine lacks. ``swift`` is a stub that
  fails on these snippets' PATH, so a block that forgot its mark cannot start a build.
- ``swift``: not compiled: it must be code of the repository, line for line (indentation aside):
  a run of lines of a Swift file under Sources/, Tests/ or Examples/ — and, for an example's
  ``main.swift`` (README.md's daemon is ``Examples/counterd/main.swift``), the whole file but its
  leading comment. So a snippet cannot drift from code that is built and tested (the same rule as
  Tests/BinderyTests/ReadmeExampleTests.swift).
- a language of SHOWN_ONLY (``text`` for output listings and diagrams, configuration formats):
  shown, never run.
A fence with no language, or another one, fails ``test_every_block_has_a_known_language``.

Every snippet runs with BINDERYD set to the daemon under test, HOME set to a folder whose
``.local/bin/binderyd`` is a copy of it (where ``scripts/install`` puts it), the virtual
environment's ``bin`` on PATH, and no npm registry.

To check another README, add its path to README_FILES (and its not-run blocks' marks, and any
new shown-only language to SHOWN_ONLY). ``test_every_readme_is_checked_or_excused`` fails when a
README that git tracks is in neither README_FILES nor EXCUSED (with the reason it is not run).
"""
from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from conftest import REPO, Sandbox

README_FILES = ["README.md", "clients/python/README.md", "clients/node/README.md", "clients/codegen/README.md"]
#: READMEs whose snippets are not run, and why.
EXCUSED = {
    "Tests/ClientMirror/README.md": "a data format, nothing to run: Tests/ClientMirror/test_corpus.py runs the corpus",
    "clients/shared/README.md": "a data file's description, nothing to run: each face's suite and "
                                "clients/web/test/test_display.py check the file",
    "Fuzz/README.md": "libFuzzer builds and runs of minutes; scripts/fuzz --smoke runs them in scripts/test",
    "Tests/Soak/README.md": "not yet: its fences are unlabelled and its command soaks for minutes; scripts/test runs "
                            "Tests/Soak",
    # The editor plugins' READMEs. To check one: label its screen captures ```text, start its sh
    # blocks with `# not run: needs Emacs` / `# not run: needs Neovim` (or make them run here),
    # then move it to README_FILES. Their blocks in elisp and vim are shown only.
    "clients/web/README.md": "its sh blocks run in clients/web/test/test_readme.py, beside a real browser",
    "clients/emacs/README.md": "not yet: its screen captures are unlabelled fences and its commands need Emacs",
    "clients/nvim/README.md": "not yet: its screen captures are unlabelled fences and its commands need Neovim",
}
RUN = {"python", "js", "sh", "swift"}
SHOWN_ONLY = {"text", "json", "jsonc", "toml", "yaml", "lua", "vim", "elisp", "emacs-lisp"}
NOT_RUN = re.compile(r"#\s*not run:\s*(\S.*)$")
PYTHONPATH_MARK = re.compile(r"#\s*PYTHONPATH=clients/python\s*$")
TIMEOUT = 90  # seconds: a snippet that takes this long does not run to completion
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")


@dataclass
class Block:
    file: str       # relative to the repository
    line: int       # of the opening fence, 1-based
    language: str   # "" when the fence has none
    code: str

    @property
    def name(self) -> str:
        return "%s:%d:%s" % (self.file, self.line, self.language or "(none)")


def extract(text: str, file: str) -> List[Block]:
    """Fenced code blocks (``` or ~~~, indented up to 3 spaces), in order."""
    blocks: List[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, language = len(opening.group(1)), opening.group(2), opening.group(3).lower()
        body: List[str] = []
        index += 1
        while index < len(lines):
            stripped = lines[index].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            body.append(lines[index][indent:] if lines[index][:indent].isspace() else lines[index])
            index += 1
        blocks.append(Block(file, index - len(body), language, "\n".join(body) + "\n"))
        index += 1
    return blocks


def all_blocks() -> List[Block]:
    blocks: List[Block] = []
    for file in README_FILES:
        blocks += extract((REPO / file).read_text(encoding="utf-8"), file)
    return blocks


BLOCKS = all_blocks()


def first_line(block: Block) -> str:
    return next((line.strip() for line in block.code.splitlines() if line.strip()), "")


def run_snippet(argv: List[str], cwd: Path, env: Dict[str, str], block: Block) -> str:
    try:
        done = subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        out = (timeout.stdout or b"").decode("utf-8", "replace") if isinstance(timeout.stdout, bytes) \
            else (timeout.stdout or "")
        pytest.fail("%s did not finish within %ds: every snippet must run to completion as written.\n"
                    "stdout so far:\n%s" % (block.name, TIMEOUT, out[-3000:]), pytrace=False)
    if done.returncode != 0:
        pytest.fail("%s failed with exit code %d.\n--- snippet ---\n%s--- stdout ---\n%s\n--- stderr ---\n%s"
                    % (block.name, done.returncode, block.code, done.stdout[-3000:], done.stderr[-3000:]),
                    pytrace=False)
    return done.stdout


def slug(block: Block) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", "%s_%d" % (block.file, block.line)).strip("_")


# The Swift check.

SWIFT_ROOTS = ("Sources", "Tests", "Examples")


def swift_lines(text: str) -> List[str]:
    """The lines, stripped (indentation aside), blank ones left out."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def contains_run(lines: List[str], run: List[str]) -> bool:
    return any(lines[start:start + len(run)] == run for start in range(len(lines) - len(run) + 1))


def check_swift(block: Block) -> None:
    """The block is code of the repository, line for line: a run of lines of a Swift file under
    Sources/, Tests/ or Examples/. When that file is an example's main.swift, the block is the whole
    of it (its leading comment aside), so neither can gain code the other lacks."""
    snippet = swift_lines(block.code)
    files = sorted(path for root in SWIFT_ROOTS for path in (REPO / root).rglob("*.swift"))
    best: Tuple[float, Optional[Path], List[str]] = (0.0, None, [])
    for path in files:
        lines = swift_lines(path.read_text(encoding="utf-8"))
        if contains_run(lines, snippet):
            if path.name == "main.swift" and path.parent.parent == REPO / "Examples":
                code = lines[next((i for i, line in enumerate(lines) if not line.startswith("//")), 0):]
                assert code == snippet, ("%s is part of %s, not all of it: the README must show the whole example"
                                         % (block.name, path.relative_to(REPO)))
            return
        ratio = difflib.SequenceMatcher(None, snippet, lines, autojunk=False).ratio()
        if ratio > best[0]:
            best = (ratio, path, lines)
    ratio, path, lines = best
    where = "" if path is None else "; closest: %s, which differs so:\n%s" % (
        path.relative_to(REPO), "\n".join(difflib.unified_diff(lines, snippet, str(path.relative_to(REPO)),
                                                               block.name, lineterm="", n=1)))
    pytest.fail("%s is not code of the repository (a run of lines of a Swift file under %s, indentation aside)%s"
                % (block.name, ", ".join(SWIFT_ROOTS), where), pytrace=False)


# The tests.

def test_every_block_has_a_known_language() -> None:
    unknown = ["%s (```%s)" % (block.name, block.language) for block in BLOCKS
               if block.language not in RUN | SHOWN_ONLY]
    assert not unknown, ("fences need a language this test knows: python, js, sh, swift to run or check, "
                         "```text for output and diagrams (or one of %s): %s"
                         % (", ".join(sorted(SHOWN_ONLY - {"text"})), "; ".join(unknown)))


def readmes() -> List[str]:
    """The repository's README*.md files: those git tracks (a draft in progress is not judged until
    it is committed), or every one in the tree outside a git checkout."""
    try:
        listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--", ":(icase)*readme*.md"],
                                capture_output=True, check=True, timeout=30).stdout.decode("utf-8")
        return [path for path in listed.split("\0") if path]
    except (OSError, subprocess.SubprocessError):
        found = []
        for folder, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "build")]
            found += [os.path.relpath(os.path.join(folder, name), REPO) for name in files
                      if name.lower().startswith("readme") and name.lower().endswith(".md")]
        return found


def test_every_readme_is_checked_or_excused() -> None:
    unknown = sorted(set(readmes()) - set(README_FILES) - set(EXCUSED))
    assert not unknown, ("add these to README_FILES in %s (or to EXCUSED, with why): %s"
                         % (os.path.basename(__file__), ", ".join(unknown)))


def test_there_are_runnable_snippets_in_each_readme() -> None:
    for file in README_FILES:
        assert any(b.file == file and b.language in RUN for b in BLOCKS), "no runnable block in %s" % file


def test_node_is_20_or_later() -> None:
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= 20, "the READMEs say Node 20; this is node %s" % version


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.language in RUN], ids=lambda b: b.name)
def test_snippet(block: Block, sandbox: Sandbox, tmp_path: Path) -> None:
    if block.language == "swift":
        check_swift(block)
    elif block.language == "python":
        script = tmp_path / (slug(block) + ".py")
        script.write_text(block.code, encoding="utf-8")
        if PYTHONPATH_MARK.match(first_line(block)):
            env = sandbox.env(PYTHONPATH=str(REPO / "clients" / "python"))
            run_snippet([sys.executable, str(script)], tmp_path, env, block)
        else:
            run_snippet([str(sandbox.python), str(script)], tmp_path, sandbox.env(), block)
    elif block.language == "js":
        script = sandbox.node_project / (slug(block) + ".mjs")
        script.write_text(block.code, encoding="utf-8")
        run_snippet(["node", str(script)], sandbox.node_project, sandbox.env(), block)
    elif block.language == "sh":
        if NOT_RUN.match(first_line(block)):
            check_not_run(block, tmp_path)
            return
        assert not first_line(block).startswith("# not run"), "%s: `# not run:` needs a reason" % block.name
        script = tmp_path / (slug(block) + ".sh")
        script.write_text(block.code, encoding="utf-8")
        run_snippet(["bash", "-e", "-o", "pipefail", str(script)], sandbox.repo, sandbox.env(), block)
    else:
        raise AssertionError(block.language)


def check_not_run(block: Block, tmp_path: Path) -> None:
    """A block that is not run (it builds, or it is interactive) is still checked: `bash -n` parses
    it, and every command it starts from this repository (`./scripts/...`) is there to run."""
    script = tmp_path / (slug(block) + ".sh")
    script.write_text(block.code, encoding="utf-8")
    parsed = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert parsed.returncode == 0, "%s: not valid shell: %s" % (block.name, parsed.stderr)
    for line in block.code.splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0].startswith("./"):
            command = REPO / words[0][2:]
            assert command.is_file() and os.access(command, os.X_OK), "%s: %s is not an executable of the repository" % (block.name, words[0])


def test_the_extractor_reads_what_markdown_would() -> None:
    text = ("intro\n```sh\n# not run: slow\nswift build\n```\n\n  ~~~python\n  print(1)\n  ```\n  ~~~\n"
            "````text\n```\nnested\n```\n````\n```\nbare\n```\n")
    blocks = extract(text, "X.md")
    assert [(b.line, b.language, b.code) for b in blocks] == [
        (2, "sh", "# not run: slow\nswift build\n"),
        (7, "python", "print(1)\n```\n"),
        (11, "text", "```\nnested\n```\n"),
        (16, "", "bare\n"),
    ]
    assert NOT_RUN.match(first_line(blocks[0])).group(1) == "slow"  # type: ignore[union-attr]


def test_a_swift_run_matches_indentation_aside_and_nothing_else() -> None:
    lines = swift_lines("// header\nfunc f() {\n    n += 1 // one\n}\n\nlet x = 2\n")
    assert lines == ["// header", "func f() {", "n += 1 // one", "}", "let x = 2"]
    assert contains_run(lines, swift_lines("  func f() {\n  n += 1 // one\n  }\n"))
    assert not contains_run(lines, swift_lines("func f() {\nn += 1\n}\n"))  # a comment differs
    assert not contains_run(lines, swift_lines("func f() {\n}\n"))           # lines left out
