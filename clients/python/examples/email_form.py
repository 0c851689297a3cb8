#!/usr/bin/env python3
"""The email form of seed 000: type an address one keystroke at a time and watch it validate.

    python3 clients/python/examples/email_form.py      (finds binderyd: $BINDERYD, PATH, .build)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # run without install

from bindery import Client, ReadOnlyField, UnknownField, WrongValueType  # noqa: E402


def main() -> None:
    with Client() as client:
        print("binderyd %s at %s" % (client.server_info.get("version"), client.daemon_path))
        form = client.open("email")
        print("opened session %d: %s" % (form.id, form.state))
        # The daemon pushes only what changes, and never echoes the keystrokes back. on_change
        # callbacks run on the client's callback thread, not this one: the two must not print at the
        # same time, or their lines can merge.
        form.on_change(lambda changes: print("    didChange rev %d: %s" % (changes.revision, dict(changes))))
        for text in ["a", "ada", "ada@", "ada@example", "ada@example.c", "ada@example.com", "ada@example.comme"]:
            form.set("email", text)  # its didChange came first: its callback is queued by now...
            client.drain_callbacks()  # ...so wait until it has run (and printed) before printing here
            print("typed %-20r -> %s" % (text, form.state["validationMessage"]))

        for mistake in (lambda: form.set("isValid", True), lambda: form.set("email", 42),
                        lambda: form.set("emial", "x")):
            try:
                mistake()
            except (ReadOnlyField, WrongValueType, UnknownField) as error:
                print("refused: %s: %s" % (type(error).__name__, error))
        form.close()
        print("closed; final state was %s" % form.state)


if __name__ == "__main__":
    main()
