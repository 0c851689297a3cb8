#!/usr/bin/env python3
"""The Bindery demo: a client drives the seed forms through a real binderyd.

It spawns the daemon as a child process, speaks JSON-RPC 2.0 with Content-Length framing over the
child's stdin/stdout, and prints every message of the exchange (--> sent, <-- received).

    python3 scripts/demo.py [path/to/binderyd]
"""
import json
import os
import select
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Connection:
    """A minimal client: numbered requests, answers read in order, didChange shown as it arrives."""

    def __init__(self, daemon):
        # Unbuffered, so that select() sees exactly what has not been read yet.
        self.process = subprocess.Popen([daemon], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.next_id = 1

    def send(self, message):
        body = json.dumps(message, separators=(",", ":")).encode()
        print("--> " + body.decode())
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("binderyd closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = b""
        while len(body) < length:
            body += self.process.stdout.read(length - len(body))
        print("<-- " + body.decode())
        return json.loads(body)

    def wait_for_notifications(self, seconds):
        """Prints what the daemon pushes, unasked, during the next few seconds."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self.process.stdout], [], [], left)[0]:
                self.receive()

    def request(self, method, **params):
        """Sends a request; prints the didChange notifications that precede its response."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == request_id:
                if "error" in message:
                    print(f"    error {message['error']['code']}: {message['error']['message']}")
                return message.get("result")

    def notify(self, method, **params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


def title(text):
    print(f"\n== {text} ==")


def main():
    daemon = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "binderyd")
    client = Connection(daemon)

    title("initialize: the daemon lists the view models it serves")
    info = client.request("initialize", clientInfo={"name": "demo"})
    print("    types: " + ", ".join(schema["type"] for schema in info["viewModels"]))

    title("email: validated as you type; only what changes is pushed, keystrokes are not echoed")
    email = client.request("session/open", type="email")["session"]
    for text in ["ada", "ada@", "ada@example", "ada@example.c", "ada@example.com"]:
        client.request("setField", session=email, field="email", value=text)
    state = client.request("session/state", session=email)["state"]
    print(f"    {state['email']!r}: {state['validationMessage']}")

    title("survey: two-way bindings with derived strings")
    survey = client.request("session/open", type="survey", observe=["experienceString", "salaryString"])["session"]
    client.request("setField", session=survey, field="name", value="Ada Lovelace")
    client.request("setField", session=survey, field="yearsOfExperience", value=3)
    client.request("setField", session=survey, field="approxSalary", value=45000)
    client.request("session/observe", session=survey, properties=["prettyString"])
    client.request("setField", session=survey, field="isCurrentEmployer", value=True)
    print("    " + client.request("session/state", session=survey)["state"]["prettyString"].replace("\n", "\n    "))

    title("login: an async command; the form follows its progress through didChange")
    login = client.request("session/open", type="login")["session"]
    client.request("setField", session=login, field="firstName", value="Ada")
    client.request("setField", session=login, field="lastName", value="Lovelace")
    user = client.request("invoke", session=login, command="login")["result"]
    print(f"    logged in after 1.5 s: {user['firstName']} {user['lastName']}, token {user['authToken']}")
    client.request("setField", session=login, field="firstName", value="Mallory")
    client.request("invoke", session=login, command="login")

    title("movies: two lists and an add-movie form share one store")
    lists = [client.request("session/open", type="movieList")["session"] for _ in range(2)]
    client.request("setField", session=lists[0], field="isPresentingAddMovie", value=True)
    add = client.request("session/open", type="addMovie")["session"]
    client.request("invoke", session=add, command="save")
    client.request("setField", session=add, field="title", value="Alien")
    client.request("setField", session=add, field="rating", value="excellent")
    client.request("invoke", session=add, command="save")
    client.request("session/close", session=add)
    client.request("setField", session=lists[0], field="isPresentingAddMovie", value=False)

    title("bottomBar: a timer pushes a new number every 2 s, unasked, until the session closes")
    bar = client.request("session/open", type="bottomBar", key="bar")["session"]
    client.wait_for_notifications(4.5)
    client.request("session/open", type="bottomBar", key="bar")
    client.request("session/close", session=bar)
    client.wait_for_notifications(2.5)
    print("    (closed: no more ticks)")

    title("errors name what was wrong, and the daemon keeps serving")
    client.request("setField", session=survey, field="yearsOfExperience", value="three")
    client.request("setField", session=survey, field="salaryString", value="lots")
    client.request("setField", session=email, field="emial", value="x")

    title("shutdown and exit")
    client.request("shutdown")
    client.notify("exit")
    code = client.process.wait(timeout=10)
    print(f"    binderyd exited with code {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
