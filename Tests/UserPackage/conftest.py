import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import userpackage  # noqa: E402


@pytest.fixture(scope="session")
def user_daemon():
    """The user's daemon, built by `swift build` (debug) in a package that depends on Bindery by version.
    USER_DAEMON names one built already (scripts/test builds it first, outside the tests' time)."""
    built = os.environ.get("USER_DAEMON")
    return built if built else str(userpackage.build())
