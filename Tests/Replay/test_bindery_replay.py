"""bindery-replay against real daemons: our own transcripts replay (exit 0), a changed one fails
with the step, the request and the member (exit 1), and a transcript of another daemon is named."""
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / ".build" / "debug"
REPLAY = os.environ.get("BINDERY_REPLAY", str(BUILD / "bindery-replay"))
BINDERYD = os.environ.get("BINDERYD", str(BUILD / "binderyd"))
APPD = os.environ.get("APPD", str(BUILD / "appd"))
TRANSCRIPTS = sorted((ROOT / "Tests" / "Transcripts").glob("*.jsonl"))


def replay(*arguments):
    return subprocess.run([REPLAY, *arguments], capture_output=True, text=True, timeout=300)


def test_every_transcript_of_ours_replays():
    done = replay("--daemon", BINDERYD, "--daemon", "appd=" + APPD, *map(str, TRANSCRIPTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok   ") == len(TRANSCRIPTS) >= 30


def test_a_changed_answer_fails_with_the_step_the_request_and_the_member(tmp_path):
    changed = tmp_path / "email-form.jsonl"
    changed.write_text((ROOT / "Tests" / "Transcripts" / "email-form.jsonl").read_text()
                       .replace('"Email is valid"', '"Email looks fine"', 1))
    done = replay("--daemon", BINDERYD, str(changed))
    assert done.returncode == 1
    assert done.stdout.splitlines()[1:] == [
        "email-form.jsonl: the daemon no longer says what was recorded (1 step differs)",
        'step 7 (line 8), didChange caused by request 3 setField {"session":1,"field":"email","value":"ada@example.com"}:',
        '  params.changes.validationMessage: expected "Email looks fine", actual "Email is valid"',
    ]
    assert "1 of 1 transcripts did not replay" in done.stderr


def test_member_order_and_white_space_do_not_count(tmp_path):
    lines = (ROOT / "Tests" / "Transcripts" / "login.jsonl").read_text().splitlines()
    rewritten = [lines[0]]
    for line in lines[1:]:
        value = json.loads(line, object_pairs_hook=lambda pairs: dict(reversed(pairs)))
        if "out" in value:  # every object's members reversed, spaced out
            line = json.dumps(value, separators=(", ", " : "))
        rewritten.append(line)
    assert rewritten != lines
    (tmp_path / "login.jsonl").write_text("\n".join(rewritten) + "\n")
    done = replay("--daemon", BINDERYD, str(tmp_path / "login.jsonl"))
    assert done.returncode == 0, done.stdout


def test_a_transcript_of_another_daemon_is_named():
    done = replay("--daemon", BINDERYD, str(ROOT / "Tests" / "Transcripts" / "cause-until-answered.jsonl"))
    assert done.returncode == 1
    assert "recorded from the daemon appd, and no --daemon runs it (given: binderyd); pass --daemon appd=CMD" in done.stdout


def test_record_mode_writes_what_the_daemon_says_now(tmp_path):
    stale = tmp_path / "email-form.jsonl"
    original = (ROOT / "Tests" / "Transcripts" / "email-form.jsonl").read_text()
    stale.write_text(original.replace('"Email is valid"', '"Email looks fine"'))
    done = replay("--daemon", BINDERYD, "--record", str(stale))
    assert done.returncode == 0 and "recorded" in done.stdout, done.stdout + done.stderr
    assert replay("--daemon", BINDERYD, str(stale)).returncode == 0
    assert "Email looks fine" not in stale.read_text()


def edit_initialize(lines, edit):
    """The transcript's lines with the initialize answer's viewModels passed through edit."""
    out = []
    for line in lines:
        value = json.loads(line)
        result = value.get("out", {}).get("result") if isinstance(value.get("out"), dict) else None
        if isinstance(result, dict) and "viewModels" in result:
            result["viewModels"] = edit(result["viewModels"])
            line = json.dumps(value, separators=(",", ":"))
        out.append(line)
    return "\n".join(out) + "\n"


def test_initialize_counts_only_the_types_the_transcript_uses(tmp_path):
    """A type added to the daemon (here: one the recording lacks) and the registry's order do not
    count; a used type's changed schema fails, naming the type and the member."""
    lines = (ROOT / "Tests" / "Transcripts" / "email-form.jsonl").read_text().splitlines()
    other = tmp_path / "other-types.jsonl"
    other.write_text(edit_initialize(lines, lambda schemas: list(reversed([s for s in schemas if s["type"] != "survey"]))))
    done = replay("--daemon", BINDERYD, str(other))
    assert done.returncode == 0, done.stdout + done.stderr

    def relabel(schemas):
        for schema in schemas:
            if schema["type"] == "email":
                schema["fields"][0]["label"] = "E-mail"
        return schemas
    changed = tmp_path / "email-schema.jsonl"
    changed.write_text(edit_initialize(lines, relabel))
    done = replay("--daemon", BINDERYD, str(changed))
    assert done.returncode == 1
    assert '  result.viewModels.email.fields[0].label: expected "E-mail", actual "Email"' in done.stdout.splitlines(), done.stdout
