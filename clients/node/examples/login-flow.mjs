// The login form: an async command under the real clock (the fake API answers after 1.5 s),
// a failed login, and a login cancelled with an AbortController.
//   node clients/node/examples/login-flow.mjs
import { Client, AbortError, CommandFailedError } from '../index.js';

const client = await Client.spawn();
const login = await client.open('login');
login.on('change', (changes) => console.log('  change:', JSON.stringify(changes)));

console.log('can log in?', login.state['login.enabled']);
await login.set('firstName', 'Ada');
await login.set('lastName', 'Lovelace');
console.log('can log in?', login.state['login.enabled']);

console.log('logging in (the API takes 1.5 s)...');
const user = await login.invoke('login');
console.log('logged in as', user);

await login.set('firstName', 'Mallory');
console.log('logging in as Mallory, whom the API rejects...');
try {
  await login.invoke('login');
} catch (error) {
  if (!(error instanceof CommandFailedError)) throw error;
  console.log(`failed: ${error.message}; detail ${JSON.stringify(error.data.detail)}`);
  console.log('the form shows:', login.state.errorMessage);
}

console.log('logging in again, cancelled after 300 ms...');
const controller = new AbortController();
setTimeout(() => controller.abort(), 300);
try {
  await login.invoke('login', undefined, { signal: controller.signal });
} catch (error) {
  if (!(error instanceof AbortError)) throw error;
  console.log(`aborted: the daemon said "${error.cause.message}"; running now ${login.state['login.running']}`);
}

await client.close();
