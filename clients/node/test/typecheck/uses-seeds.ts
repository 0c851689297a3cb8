// A script using the generated typings (bindery-client/seeds): `tsc --strict --noEmit` must accept
// it (test/typecheck.test.js). Every seed type, through its generated class.
import { Client, SchemaMismatchError, SnapshotMismatchError } from 'bindery-client';
import type { HistoryResult, Snapshot, Splice } from 'bindery-client';
import {
  AddMovieSession, BottomBarSession, ElementSession, EmailSession, LoginSession, MovieListSession, PackageSession,
  SurveySession,
} from 'bindery-client/seeds';
import type { LoginState, Movie, PackageContent, Rating, User } from 'bindery-client/seeds';

const client = await Client.spawn({ deterministic: true });

const form = await EmailSession.open(client);
const validity: boolean[] = [];
const stop = form.onChange((changes, { revision }) => {
  if (changes.isValid !== undefined) validity.push(changes.isValid);
  console.log(revision, changes.validationMessage?.toUpperCase());
});
await form.setEmail('a@b.co');
await form.set('email', 'ada@example.com');
const message: string = form.state.validationMessage;
stop();

const survey = await SurveySession.open(client);
await survey.setName(null);
await survey.setYearsOfExperience(3);
await survey.setApproxSalary(45000.5);
await survey.setIsCurrentEmployer(true);
const pretty: string = survey.state.prettyString;
const years: number | null = survey.state.yearsOfExperience;
const undone: HistoryResult = await survey.undo();
const canRedo: boolean = undone.canRedo;
await survey.redo();
const kept: Snapshot = await survey.snapshot();
const copy = await SurveySession.open(client, { restore: kept });
const restored: boolean = copy.restored;
try {
  await client.open('survey', { restore: { type: 'survey', fields: { nickname: 'Ada' } } });
} catch (error) {
  if (error instanceof SnapshotMismatchError) console.log(error.data.reason);
}
const splicing: boolean | undefined = client.capabilities.splices;

const login = await LoginSession.open(client, { key: 'main' });
await login.setFirstName('Ada');
await login.setLastName('Lovelace');
const call: Promise<User> = login.login();
await login.waitUntil((state: LoginState) => state['login.running']);
await client.advanceClock(1500);
const user = await call;
const token: string = user.authToken;
const loggedIn: User | null = login.state.loggedInUser;

const pkg = await PackageSession.open(client);
await pkg.setStreet('37 Christie St');
const nothing: null = await pkg.addRandomItem();
const contents: PackageContent[] = pkg.state.contents;
const weights: number[] = contents.map((item) => item.weight);

const helium = await ElementSession.open(client, { args: { symbol: 'He' } });
const weight: number = helium.state.atomicWeight;

const list = await MovieListSession.open(client);
await list.setIsPresentingAddMovie(true);
const add = await AddMovieSession.open(client);
await add.setTitle('Alien');
const rating: Rating = 'excellent';
await add.setRating(rating);
const canSave: boolean = add.state['save.enabled'];
const movie: Movie = await add.save();
const titles: string[] = list.state.movies.map((each) => `${each.fullTitle} (${each.givenRating})`);
list.onChange((changes, { splices }) => {
  const edit: Splice | undefined = splices.movies;
  console.log(changes.movies?.length, edit?.ops[0]?.at, edit?.length);
});
for await (const changes of list.changes()) {
  const movies: Movie[] | undefined = changes.movies;
  console.log(movies?.length);
  break;
}

const bar = await BottomBarSession.open(client);
await client.advanceClock(2000);
const text: string = bar.state.text;
await bar.close();

try {
  await EmailSession.open(client);
} catch (error) {
  if (error instanceof SchemaMismatchError) console.log(error.data.expected);
}

console.log(canRedo, restored, splicing);
console.log(message, pretty, years, token, loggedIn, nothing, weights, weight, canSave, movie.id, titles, text, validity);
await client.close();
