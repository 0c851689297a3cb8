// Two movie lists and an add-movie form on one daemon: saving a movie shows up in both lists.
// Runs under --deterministic, so movie ids and the timer below are the same on every run.
//   node clients/node/examples/movies.mjs
import { Client } from '../index.js';

const client = await Client.spawn({ deterministic: true });
const list = await client.open('movieList');
const titlesOnly = await client.open('movieList', { observe: ['movies'] });
const show = (name, session) => session.on('change', (changes) => {
  if (changes.movies) console.log(`  ${name} now lists:`, changes.movies.map((movie) => `${movie.fullTitle} (${movie.givenRating})`).join(', '));
});
show('list 1', list);
show('list 2', titlesOnly);

for (const [title, rating] of [['Alien', 'excellent'], ['Heat', 'good'], ['Cats', 'terrible']]) {
  await list.set('isPresentingAddMovie', true);
  const add = await client.open('addMovie');
  console.log(`adding ${title}: can save before a title? ${add.state['save.enabled']}`);
  await add.set('title', title);
  await add.set('rating', rating);
  const movie = await add.invoke('save');
  console.log(`saved`, movie);
  await add.close();
  await list.set('isPresentingAddMovie', false);
}
console.log('both lists agree:', JSON.stringify(list.state.movies) === JSON.stringify(titlesOnly.state.movies));

// A timer-driven view model, read with an async iterator while the virtual clock moves.
const bar = await client.open('bottomBar');
const ticks = bar.changes();
await client.advanceClock(6000);
let count = 0;
for await (const changes of ticks) {
  console.log('bottom bar:', changes.text);
  if (++count === 3) break;
}
await client.close();
