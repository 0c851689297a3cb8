// bindery-replay: replays recorded transcripts against a daemon command, for CI of a daemon
// written in any language. Exit 0 when every transcript replays, 1 when one does not, 2 on misuse.
import BinderyTranscript
import Glibc

signal(SIGPIPE, SIG_IGN)

let usage = """
    usage: bindery-replay --daemon CMD [--daemon NAME=CMD …] [--record] FILE…

    Replays each transcript (a `binderyd --record` / `bindery-dev --record` file, or one an editor
    or the web page saved) against a fresh daemon started as CMD plus the transcript's recorded
    arguments (`--deterministic --seed N`), and compares every message the daemon writes with the
    recorded one, in order, as a client reads it: member order and white space do not count. A
    difference is printed with its step, the request that led to it, and each member, expected and
    actual.

    --daemon CMD        the daemon command (words split by /bin/sh). It replays the transcripts
                        recorded from a daemon of the same name as CMD's program (a transcript
                        whose header names no daemon was recorded from binderyd).
    --daemon NAME=CMD   the command for transcripts recorded from daemon NAME (repeatable).
                        A transcript of a daemon with no command is reported, and fails the run.
    --record            writes each transcript that differs again from what the daemon says now.
    --help, --version
    """

func fail(_ message: String, _ code: Int32) -> Never {
    let line = Array((message + "\n").utf8)
    line.withUnsafeBytes { _ = write(code == 0 ? 1 : 2, $0.baseAddress, $0.count) }
    exit(code)
}

var commands: [String: String] = [:]
var files: [String] = []
var recording = false
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h": fail(usage, 0)
    case "--version": fail("bindery-replay 0.1.0", 0)
    case "--record": recording = true
    case "--daemon":
        guard let value = arguments.popFirst(), !value.isEmpty else { fail("bindery-replay: --daemon needs a command", 2) }
        let (name, command) = DaemonCommand.split(value)
        commands[name] = command
    default:
        if argument.hasPrefix("-") { fail("bindery-replay: unknown option \(argument)\n\n\(usage)", 2) }
        files.append(argument)
    }
}
if commands.isEmpty || files.isEmpty { fail(usage, 2) }

var failed = 0
for file in files {
    let transcript: Transcript
    do { transcript = try Transcript(contentsOf: file) } catch {
        print("FAIL \(file): \(error)")
        failed += 1
        continue
    }
    guard let command = commands[transcript.daemon] else {
        print("FAIL \(file): recorded from the daemon \(transcript.daemon), and no --daemon runs it "
              + "(given: \(commands.keys.sorted().joined(separator: ", "))); pass --daemon \(transcript.daemon)=CMD")
        failed += 1
        continue
    }
    do {
        let peer = try DaemonPipes(command: command, arguments: transcript.arguments, framing: transcript.framing)
        if recording {
            let recorded = await Replayer.record(transcript, with: peer)
            if transcript.says(theSameAs: recorded) {
                print("ok   \(file)")
            } else {
                try recorded.write(to: file)
                print("recorded \(file) again: review its diff")
            }
            continue
        }
        let report = await Replayer.compare(transcript, with: peer)
        if report.passed {
            print("ok   \(file) (\(transcript.messages.count) messages)")
        } else {
            print("FAIL \(file)\n\(report)")
            failed += 1
        }
    } catch {
        print("FAIL \(file): \(error)")
        failed += 1
    }
}
if failed > 0 { fail("bindery-replay: \(failed) of \(files.count) transcripts did not replay", 1) }
exit(0)
