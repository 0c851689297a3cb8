"""A daemon over pipes, newline-delimited JSON: send requests, read every message in order."""
import json
import queue
import subprocess
import threading


class Daemon:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.messages = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.messages.put(json.loads(line))
        self.messages.put(None)

    def send(self, method, params):
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(body).encode() + b"\n")
        self.process.stdin.flush()
        return self.next_id

    def next(self, timeout):
        message = self.messages.get(timeout=timeout)
        if message is None:
            raise EOFError("the daemon closed its output: " + self.process.stderr.read().decode()[-2000:])
        return message

    def request(self, method, params, timeout=10):
        """Sends a request and returns its response, with the notifications that came first."""
        sent = self.send(method, params)
        before = []
        while True:
            message = self.next(timeout)
            if message.get("id") == sent:
                return message, before
            before.append(message)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
