#!/usr/bin/env python3
"""The login form of seed 003: an async command against a fake user API that answers in ~1.5 s.

    python3 clients/python/examples/login_flow.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # run without install

from bindery import Client, CommandDisabled, CommandFailed, RequestTimeout  # noqa: E402


def main() -> None:
    with Client() as client:
        login = client.open("login")
        login.on_change(lambda changes: print("    didChange: %s" % dict(changes)))
        try:
            login.invoke("login")
        except CommandDisabled as error:
            print("before typing a name: %s" % error)

        login.set("firstName", "Ada")
        login.set("lastName", "Lovelace")
        client.drain_callbacks()  # callbacks run on their own thread; let them print first
        print("can log in: %s" % login.state["loginInputValid"])
        started = time.monotonic()
        user = login.invoke("login", timeout=10)
        client.drain_callbacks()
        print("logged in after %.1f s as %s" % (time.monotonic() - started, user))

        login.set("firstName", "Mallory")  # the fake API rejects Mallory
        try:
            login.invoke("login", timeout=10)
        except CommandFailed as error:
            client.drain_callbacks()
            print("failed: %s; detail %s" % (error.message, error.data.get("detail")))
            print("errorMessage is now %r" % login.state["errorMessage"])

        try:
            login.invoke("login", timeout=0.3)  # give up early: the client cancels the command
        except RequestTimeout as error:
            client.drain_callbacks()
            print("%s\n    the daemon answered: %s" % (error, error.cancellation))
            print("running: %s" % login.state["login.running"])


if __name__ == "__main__":
    main()
