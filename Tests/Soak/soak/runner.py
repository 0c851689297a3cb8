"""The soak run: startup, the seeded loop within its budget, the final snapshots and the end of the
daemon, progress, and the violation report."""
import json
import random
import sys
import time

from .constants import RESPONSE_TIMEOUT
from .exchange import Exchange, describe_exit
from .generator import Traffic
from .jsonwire import encode_json, id_key
from .parts import Part, Raw
from .records import Violation
from .shrink import save_reproducer
from .transport import DaemonGone


class Soak:
    def __init__(self, options):
        self.options = options
        self.rng = random.Random(options.seed)
        # Per seed: live or deterministic mode, the framing, how the run ends.
        self.deterministic = self.rng.random() < 0.5
        framing = options.framing
        if framing == "random":
            framing = self.rng.choice(["ndjson", "content-length"])
        self.framing = framing
        self.daemon_seed = self.rng.randint(1, 1000)
        self.arguments = ["--deterministic", "--seed", str(self.daemon_seed)] if self.deterministic else []
        self.ending = self.rng.choice(["shutdown", "end-of-input"])
        self.exchange = None
        self.traffic = None

    # The link the traffic generator uses: sending, and waiting for an answer it needs.
    def send_parts(self, parts, as_batch=False):
        ensure_ascii = self.rng.random() < 0.3
        if as_batch:
            body = encode_json([p.message for p in parts], ensure_ascii).encode()
            self.exchange.send_body(body, messages=len(parts))
            return
        for part in parts:
            if isinstance(part.message, Raw):
                if part.message.stream:
                    self.exchange.send_stream(part.message.data, part.message.nulls)
                else:
                    self.exchange.send_body(part.message.data)
            else:
                self.exchange.send_body(encode_json(part.message, ensure_ascii).encode())

    def watch(self, id_value):
        self.exchange.model.watch(id_key(id_value))

    def forget(self, id_value):
        self.exchange.model.forget(id_key(id_value))

    def response(self, id_value):
        key, model = id_key(id_value), self.exchange.model
        model.watch(key)
        self.exchange.wait_until(lambda: model.response(key) is not None, RESPONSE_TIMEOUT,
                                 f"waiting for the answer to id {json.dumps(id_value)}")
        return model.response(key)

    def run(self):
        options = self.options
        mode = "deterministic" if self.deterministic else "live"
        print(f"soak: seed {options.seed}: binderyd {' '.join(self.arguments) or '(live clock)'}, {mode} mode, "
              f"{self.framing} framing, ending by {self.ending}", flush=True)
        self.exchange = Exchange(options.daemon, self.arguments, self.framing, self.deterministic)
        self.traffic = Traffic(self.rng, self, self.deterministic, self.framing)
        started = time.monotonic()
        try:
            self.traffic.startup()
            self.loop(started)
            self.finish()
        except Violation as violation:
            self.report(violation)
            return 1
        except DaemonGone as gone:
            code = self.exchange.daemon.wait(2)
            self.report(Violation("exit", f"{gone} ({describe_exit(code)})"))
            return 1
        except Exception:
            # A bug of the soak itself: show where the exchange was, and fail differently.
            print("soak: INTERNAL ERROR (a bug in scripts/soak, not a violation); the last messages:")
            for line in self.exchange.report_lines():
                print(line)
            raise
        finally:
            self.exchange.close()
        elapsed = time.monotonic() - started
        print(f"soak: seed {options.seed}: {self.exchange.operations} operations sent, "
              f"{self.exchange.model.received} messages received, 0 violations, {elapsed:.1f} s, "
              f"{self.exchange.operations / elapsed:.0f} ops/s", flush=True)
        return 0

    def budget_left(self, started):
        if self.options.operations is not None:
            return self.exchange.operations < self.options.operations
        return time.monotonic() - started < self.options.seconds

    def loop(self, started):
        exchange, traffic = self.exchange, self.traffic
        next_progress = started + 2
        while self.budget_left(started):
            kind, parts = traffic.next_chunk()
            if kind == "burst":
                for _ in range(self.rng.randint(10, 150)):
                    self.send_parts(traffic.single())
            elif kind == "batch":
                if parts:
                    self.send_parts(parts, as_batch=True)
            else:
                self.send_parts(parts)
            exchange.daemon.flush()
            exchange.drain()
            if len(exchange.model.pending) > 2000:   # bound the backlog: wait for answers
                exchange.wait_until(lambda: len(exchange.model.pending) < 500, RESPONSE_TIMEOUT * 3,
                                    "waiting for the backlog of answers")
            if self.options.verbose and time.monotonic() >= next_progress:
                next_progress += 2
                print(f"soak: {time.monotonic() - started:.0f} s: {exchange.operations} operations, "
                      f"{exchange.model.received} received, {len(exchange.model.pending)} pending, "
                      f"{len(traffic.open_sessions())} sessions", file=sys.stderr, flush=True)

    def finish(self):
        """Lets commands end, compares every session's fold a last time, then ends the daemon."""
        exchange, traffic, model = self.exchange, self.traffic, self.exchange.model
        if self.ending == "shutdown":
            if self.deterministic:
                advance = traffic.request("clock/advance", {"ms": 2000})
                self.send_parts([Part(advance)])
                self.response(advance["id"])
            else:
                exchange.wait_until(lambda: not model.async_running, RESPONSE_TIMEOUT,
                                    "waiting for async commands to answer")
        final = traffic.finish()
        self.send_parts(final)
        exchange.wait_until(lambda: all(id_key(p.message["id"]) not in model.pending for p in final),
                            RESPONSE_TIMEOUT, "waiting for the final session/state answers")
        if self.ending == "shutdown":
            self.send_parts([Part(traffic.request("shutdown")),
                             Part(traffic.request("session/state", {"session": 1})),   # refused: -32600
                             Part(traffic.notification("exit"))])
        exchange.end()

    def report(self, violation):
        options, exchange = self.options, self.exchange
        out = sys.stdout
        print(f"\nsoak: VIOLATION (seed {options.seed}, check '{violation.check}'): {violation}", file=out)
        print(f"soak: binderyd {' '.join(self.arguments) or '(live clock)'}, {self.framing} framing; "
              f"{exchange.operations} operations sent, {exchange.model.received} messages received", file=out)
        print("soak: the last 40 messages, in (client to daemon) and out, in the order they crossed:", file=out)
        for line in exchange.report_lines():
            print(line, file=out)
        if exchange.daemon.stderr_tail:
            print("soak: binderyd's stderr (last lines):", file=out)
            for line in exchange.daemon.stderr_tail:
                print("    " + line, file=out)
        if options.log:
            exchange.close()
            model = exchange.model
            types = {view.id: view.type for view in [*model.views.values(), *model.closed_views.values()]}
            save_reproducer(options, self, violation, exchange.input_log.records(), types)
        out.flush()
