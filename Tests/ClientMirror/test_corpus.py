"""The client mirror corpus (cases/*.json) against protocol.md's rules as reference_mirror.py writes
them: the corpus is consistent, and covers what it must. Each face runs the same files."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_mirror  # noqa: E402

CASES = [(path.stem, case) for path in sorted((Path(__file__).parent / "cases").glob("*.json"))
         for case in json.loads(path.read_text())["cases"]]


@pytest.mark.parametrize("case", [case for _, case in CASES], ids=["%s: %s" % (f, c["name"]) for f, c in CASES])
def test_the_reference_mirror_folds_every_case_as_expected(case):
    assert reference_mirror.run(case) == []


def test_the_corpus_covers_folds_gaps_splices_children_pending_writes_and_resyncs():
    files = {name for name, _ in CASES}
    assert files >= {"folds", "gaps", "splices", "children", "pending"}
    assert sum(1 for _, case in CASES if "resync" in case["expect"]) >= 6
    names = {case["name"] for _, case in CASES}
    assert len(names) == len(CASES), "every case has a name of its own"
