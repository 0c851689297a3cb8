"""A brief soak of binderyd: five seeds, two seconds each (about ten seconds in all), and the shared
mode (five clients on one `binderyd --listen`), two seeds of three seconds.

Each seed runs scripts/soak against the daemon at $BINDERYD (default: this repository's
.build/debug/binderyd) and fails on any violation of protocol.md the soak's model detects. The
failure message is the soak's report: the seed, the violation, the last 40 messages; rerun the
printed command with --log FILE to get a minimized reproducer.

    python3 -m pytest Tests/Soak -q
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOAK = os.path.join(ROOT, "scripts", "soak")
DAEMON = os.environ.get("BINDERYD") or os.path.join(ROOT, ".build", "debug", "binderyd")
SEEDS = [1, 2, 3, 4, 5]          # per seed: live or deterministic mode, NDJSON or LSP framing
SECONDS_PER_SEED = 2


@pytest.mark.parametrize("seed", SEEDS)
def test_soak_finds_no_violation(seed):
    if not os.access(DAEMON, os.X_OK):
        pytest.fail(f"no binderyd at {DAEMON}: build it (swift build) or set BINDERYD")
    command = [sys.executable, SOAK, "--seed", str(seed), "--seconds", str(SECONDS_PER_SEED),
               "--daemon", DAEMON, "--framing", "random"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (
        f"soak seed {seed} failed (exit code {run.returncode}).\n"
        f"Reproduce: {' '.join(command[1:])} --log soak-{seed}.ndjson\n\n{run.stdout}\n{run.stderr}")


SHARED_SEEDS = [11, 12]           # the shared mode: five clients on one binderyd --listen
SHARED_SECONDS = 3


@pytest.mark.parametrize("seed", SHARED_SEEDS)
def test_shared_soak_finds_no_violation(seed):
    if not os.access(DAEMON, os.X_OK):
        pytest.fail(f"no binderyd at {DAEMON}: build it (swift build) or set BINDERYD")
    command = [sys.executable, SOAK, "--shared", "5", "--seed", str(seed), "--seconds", str(SHARED_SECONDS),
               "--daemon", DAEMON]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (
        f"shared soak seed {seed} failed (exit code {run.returncode}).\n"
        f"Reproduce: {' '.join(command[1:])}\n\n{run.stdout}\n{run.stderr}")
