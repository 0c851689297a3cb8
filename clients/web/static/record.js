// The Record button: the exchange between this page and its daemon offered as a download in the
// transcript format (protocol.md, "Transcripts"), which BinderyTesting's Transcript.replay and
// bindery-replay replay against a fresh daemon. Nothing is written on the server: the file is made
// in the page.
//
// A replay starts a fresh daemon, so a recording must hold the form's opening: the page keeps the
// connection's exchange from its start (initialize, each form's session/open) and a recording is
// that exchange up to Stop. Record says you want one; a page loaded again starts afresh.

const KEPT = 50000; // messages kept per connection; past that the start is lost and said so

export class Recorder {
  constructor() {
    this.log = [];
    this.lost = false;
    this.daemon = 'binderyd';
    this.arguments = [];
    this.recording = false;
  }

  /** A new daemon connection: `command` is the bridge's daemon command (hello.daemon). */
  connected(command) {
    this.log = [];
    this.lost = false;
    const words = String(command || '').split(/\s+/);
    this.arguments = [];
    words.forEach((word, index) => {
      if (word === '--deterministic') this.arguments.push(word);
      if (word === '--seed' && index + 1 < words.length) this.arguments.push(word, words[index + 1]);
    });
  }

  /** Every body the page sends ('in') or receives ('out'), as text. */
  tap(direction, text) {
    // bindery-dev's own notifications (daemon/reloaded ...): no daemon sends them, so none replays.
    if (direction === 'out' && text.includes('"method":"daemon/')) return;
    this.log.push([direction, text]);
    if (this.log.length > KEPT) {
      this.log.shift();
      this.lost = true;
    }
    if (direction === 'out' && text.includes('"serverInfo"')) {
      const info = parse(text)?.result?.serverInfo;
      if (info) this.daemon = info.name;
    }
  }

  start() {
    this.recording = true;
  }

  /** Whether a request recorded has no answer yet. */
  unanswered() {
    const asked = new Set();
    const answered = new Set();
    for (const [direction, text] of this.log) {
      const message = parse(text);
      if (!message || message.id === undefined) continue;
      if (direction === 'in' && message.method !== undefined) asked.add(message.id);
      if (direction === 'out' && message.method === undefined) answered.add(message.id);
    }
    return [...asked].some((id) => !answered.has(id));
  }

  /** Stops; the transcript's text. */
  stop() {
    this.recording = false;
    const header = JSON.stringify({ framing: 'ndjson', daemon: this.daemon, arguments: this.arguments });
    return [header, ...this.log.map(([direction, text]) => '{"' + direction + '":' + text + '}')].join('\n') + '\n';
  }
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    return null;
  }
}

/** Offers `text` as a download named `name`, from the page itself. */
export function download(name, text) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
}
