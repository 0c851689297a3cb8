"""Constants: the default daemon path, numeric limits and timeouts, the view-model knowledge the soak
has beyond the schemas, and the method names protocol.md defines."""
import os


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFAULT_DAEMON = os.environ.get("BINDERYD") or os.path.join(ROOT, ".build", "debug", "binderyd")

FLOAT_MAX = 3.4028234663852886e38          # Float.greatestFiniteMagnitude, exactly, as a double
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
MAX_DEPTH = 512                             # binderyd's default --max-depth
RESPONSE_TIMEOUT = 10.0                     # a sync request unanswered this long is a hang
# The only view-model knowledge the soak has beyond the schemas (protocol.md, "View model types").
ASYNC_DURATION_MS = {("login", "login"): 1500}   # the fake user API answers after 1.5 s
FAILING_FIRST_NAME = "Mallory"                   # ...and rejects this first name
OPEN_ARGUMENT = {"element": "symbol"}            # types whose session/open needs an argument
BINDERY_METHODS = {"initialize", "shutdown", "session/open", "session/close", "session/state",
                   "session/observe", "setField", "invoke", "clock/advance", "viewModels/describe"}
SESSION_METHODS = {"session/close", "session/state", "session/observe", "setField", "invoke"}
