// Types an address into the email form one keystroke at a time and prints what the daemon says.
//   node clients/node/examples/email-form.mjs
import { Client, BinderyError } from '../index.js';

const client = await Client.spawn();
console.log(`connected to ${client.serverInfo.name} ${client.serverInfo.version} (pid ${client.process.pid})`);

const form = await client.open('email');
console.log('opened email session', form.id, form.state);
form.on('change', (changes, { revision, cause }) => {
  console.log(`  didChange r${revision} (caused by request ${cause}):`, changes);
});

for (const text of ['a', 'a@', 'a@b', 'a@b.c', 'a@b.co', 'a@b.commm']) {
  await form.set('email', text);
  // The promise resolves after the daemon's answer: the state already shows the effects.
  console.log(`typed ${JSON.stringify(text).padEnd(12)} -> isValid ${form.state.isValid}, "${form.state.validationMessage}"`);
}

try {
  await form.set('isValid', true);
} catch (error) {
  if (!(error instanceof BinderyError)) throw error;
  console.log(`refused: ${error.name} (${error.code}): ${error.message}`);
}

console.log('daemon exited with', await client.close());
