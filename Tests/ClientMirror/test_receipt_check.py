"""test_every_face_ran.py's check, on receipts written by hand into a temporary directory."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_every_face_ran as every_face  # noqa: E402


def write(directory, face, cases, named=None):
    """A receipt `<face>.json`; `named` another face in it."""
    (directory / (face + ".json")).write_text(json.dumps({"face": named or face, "cases": cases}))


def test_the_corpus_size_counts_every_case_of_every_file(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"cases": [{"name": "1"}, {"name": "2"}]}))
    (tmp_path / "b.json").write_text(json.dumps({"cases": [{"name": "3"}]}))
    assert every_face.corpus_size(tmp_path) == 3
    assert every_face.corpus_size() > 0


def test_six_faces_that_ran_every_case_pass(tmp_path):
    for face in every_face.FACES:
        write(tmp_path, face, 31)
    lines, problems = every_face.check(tmp_path, 31)
    assert problems == []
    assert len(lines) == 6 and all("ran all 31 cases" in line for line in lines)


def test_an_empty_directory_names_every_face_missing(tmp_path):
    lines, problems = every_face.check(tmp_path, 31)
    assert problems == ["%s: no receipt" % face for face in every_face.FACES]
    assert all("did not run it" in line for line in lines)


def test_a_face_missing_a_short_count_and_a_bad_receipt_each_fail(tmp_path):
    for face in ("python", "node", "web"):
        write(tmp_path, face, 31)
    write(tmp_path, "neovim", 30)                               # a case left out
    (tmp_path / "emacs.json").write_text("{not json")           # not a receipt
    lines, problems = every_face.check(tmp_path, 31)            # bindery-dev: none
    assert problems == ["neovim: 30 of 31 cases", "emacs: unreadable receipt", "bindery-dev: no receipt"]
    assert "ran 30 of the 31 cases" in lines[2]


def test_a_receipt_names_its_own_face_and_counts_with_an_integer(tmp_path):
    for face in every_face.FACES:
        write(tmp_path, face, 31)
    write(tmp_path, "node", 31, named="python")
    write(tmp_path, "web", "31")
    _, problems = every_face.check(tmp_path, 31)
    assert problems == ["node: unreadable receipt", "web: unreadable receipt"]
