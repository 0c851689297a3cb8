// A script that misuses the generated typings: `tsc --strict --noEmit` must reject it, with exactly
// the errors marked `// error TS…` (test/typecheck.test.js checks the lines and the codes).
import { Client } from 'bindery-client';
import { AddMovieSession, ElementSession, LoginSession } from 'bindery-client/seeds';
import type { Movie } from 'bindery-client/seeds';

const client = await Client.spawn({ deterministic: true });
const login = await LoginSession.open(client);

// Wrong field names.
await login.setFirstNam('Ada'); // error TS2551
await login.set('firstNam', 'Ada'); // error TS2345
await login.set('loginInputValid', true); // error TS2345
const typo = login.state.firstNam; // error TS2551

// Wrong value types.
await login.setFirstName(42); // error TS2345
await login.set('lastName', null); // error TS2345
const add = await AddMovieSession.open(client);
await add.setRating('great'); // error TS2345
const count: number = await add.save(); // error TS2322
const movie: Movie = await add.save();
const stars: number = movie.givenRating; // error TS2322
login.onChange((changes) => {
  const first: string = changes.firstName; // error TS2322
  console.log(first);
});

// History: results and snapshots are typed too.
const revision: string = (await login.undo()).revision; // error TS2322
await LoginSession.open(client, { restore: 'snapshot' }); // error TS2322

// Members a type does not have.
const helium = await ElementSession.open(client, { args: { symbol: 'He' } });
await helium.setName('Deuterium'); // error TS2339

console.log(typo, count, stars, revision);
await client.close();
