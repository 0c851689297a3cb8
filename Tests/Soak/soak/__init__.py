"""The soak test of binderyd, split by job (Tests/Soak/README.md). scripts/soak is the entry point;
cli.main runs it.
"""


