// The Node face of test_five_faces.py: a client of the shared daemon (`socket: 'auto'`) holding the
// keyed survey, saying on stdout (one JSON object a line) its form's name, its reconnect events, and
// what it was told to write. Its stdin takes one JSON object a line: {"set": [field, value]}.
// argv: the Node client's index.js, the type, the key.
import readline from 'node:readline';

const [indexPath, type, key] = process.argv.slice(2);
const { Client } = await import(indexPath);
const say = (object) => process.stdout.write(JSON.stringify(object) + '\n');

const client = await Client.connect({ socket: 'auto', daemon: process.env.BINDERYD, timeout: 30000 });
client.on('reconnecting', ({ delay, attempt, error }) => say({
  event: 'reconnecting', delay, attempt, message: error?.message, signal: error?.signal ?? null, name: error?.name,
}));
client.on('reconnected', ({ attempt, sessions }) => say({
  event: 'reconnected', attempt, keys: sessions.map((s) => s.key), restored: sessions.map((s) => s.restored),
  names: sessions.map((s) => s.state.name),
}));
const form = await client.open(type, { key });
const show = (source) => say({ event: 'state', source, name: form.state.name, id: form.id });
form.on('change', (_changes, { source }) => show(source));
show('open');

for await (const line of readline.createInterface({ input: process.stdin })) {
  const { set } = JSON.parse(line);
  const revision = await form.set(set[0], set[1]);
  say({ event: 'wrote', field: set[0], value: set[1], revision });
  show('wrote');
}
await client.close();
