"""The command line: options, the daemon check (exit code 2), and the run."""
import argparse
import os
import random
import sys

from .constants import DEFAULT_DAEMON
from .runner import Soak


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Model-based soak test for binderyd (Tests/Soak/README.md).")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random, printed)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=None, help="run this long (default 10)")
    budget.add_argument("--operations", type=int, default=None, help="send this many messages")
    parser.add_argument("--daemon", default=DEFAULT_DAEMON,
                        help="path to binderyd (default $BINDERYD, else .build/debug/binderyd)")
    parser.add_argument("--framing", choices=["ndjson", "content-length", "random"], default="random")
    parser.add_argument("--verbose", action="store_true", help="print progress every 2 seconds")
    parser.add_argument("--log", help="on a violation, save a minimized reproducer (input lines) here")
    parser.add_argument("--shared", type=int, metavar="N", default=None,
                        help="the shared mode: N clients on one binderyd --listen (see soak/shared.py)")
    parser.add_argument("--minimize-seconds", type=float, default=60.0,
                        help="time allowed to shrink the reproducer (default 60)")
    options = parser.parse_args(argv)
    if options.seed is None:
        options.seed = random.SystemRandom().randint(1, 10 ** 6)
    if options.seconds is None and options.operations is None:
        options.seconds = 10.0
    return options


def main(argv):
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.setswitchinterval(0.0005)     # the reader thread hands over answers sooner
    options = parse_arguments(argv)
    if not os.access(options.daemon, os.X_OK):
        print(f"soak: no executable binderyd at {options.daemon} (use --daemon or $BINDERYD)", file=sys.stderr)
        return 2
    if options.shared:
        from .shared import SharedSoak
        return SharedSoak(options, options.shared).run()
    return Soak(options).run()
