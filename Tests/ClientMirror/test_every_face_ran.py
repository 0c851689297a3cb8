"""The test command's last suite: every face ran the whole client mirror corpus with its own mirror
code. A face's runner, having run every case of cases/*.json and seen all pass, writes the receipt
`$BINDERY_MIRROR_RECEIPTS/<face>.json`: `{"face": "<face>", "cases": <cases run>}`. scripts/test
empties that directory at its start and runs this after every face's suite; it prints which faces
ran the corpus, and fails unless all six did, every case. Without the variable (this folder's tests
run alone) there are no receipts to read, and the check is skipped."""
import json
import os
from pathlib import Path

import pytest

FACES = ("python", "node", "neovim", "emacs", "web", "bindery-dev")
CASES = Path(__file__).resolve().parent / "cases"


def corpus_size(cases=CASES):
    """The number of cases in the corpus: what every receipt must say."""
    return sum(len(json.loads(path.read_text())["cases"]) for path in sorted(Path(cases).glob("*.json")))


def read_receipt(path):
    """The number of cases a receipt says its face ran; None when it is not a receipt of that face."""
    try:
        receipt = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(receipt, dict) or receipt.get("face") != path.stem or type(receipt.get("cases")) is not int:
        return None
    return receipt["cases"]


def check(directory, size):
    """Reads the receipts in `directory`: (one line per face saying what it ran, the problems).
    No problems when every face ran all `size` cases."""
    lines, problems = [], []
    for face in FACES:
        path = Path(directory) / (face + ".json")
        ran = read_receipt(path) if path.exists() else None
        if not path.exists():
            lines.append("%-12s did not run it (no receipt)" % face)
            problems.append("%s: no receipt" % face)
        elif ran is None:
            lines.append("%-12s wrote a receipt that is not {\"face\": %r, \"cases\": N}" % (face, face))
            problems.append("%s: unreadable receipt" % face)
        elif ran != size:
            lines.append("%-12s ran %d of the %d cases" % (face, ran, size))
            problems.append("%s: %d of %d cases" % (face, ran, size))
        else:
            lines.append("%-12s ran all %d cases" % (face, size))
    return lines, problems


@pytest.mark.skipif(not os.environ.get("BINDERY_MIRROR_RECEIPTS"),
                    reason="BINDERY_MIRROR_RECEIPTS is not set: scripts/test sets it and runs every face first")
def test_every_face_ran_every_case_of_the_corpus(capsys):
    size = corpus_size()
    lines, problems = check(os.environ["BINDERY_MIRROR_RECEIPTS"], size)
    with capsys.disabled():
        print("\nthe client mirror corpus (%d cases), by face:" % size)
        for line in lines:
            print("  " + line)
    assert not problems, "not every face ran the whole corpus: " + "; ".join(problems)
