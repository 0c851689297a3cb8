// A script using typings generated for appd's view models (Examples/AppViewModels):
// test/typecheck.test.js generates appd-types.js and .d.ts from the real appd into a temporary
// folder beside a copy of this script, and `tsc --strict --noEmit` must accept it. Dates, bytes and
// sets as Date, Uint8Array and Set; decimals and UUIDs as strings; dictionaries; unions.
import { Client } from 'bindery-client';
import type { ChildRef, Session } from 'bindery-client';
import {
  CounterRowViewModelSession, CountersTabViewModelSession, FavoritesSession, OrderSession, SearchSession,
  TabbedAppSession, TodoListSession, ValueCatalogueSession,
} from './appd-types.js';
import type {
  Address, Film, LoadState, OrderLine, Pair, Product, Shape, Tag, TodoItem, ValueCatalogueState,
} from './appd-types.js';

const client = await Client.spawn({ deterministic: true });

const catalogue = await ValueCatalogueSession.open(client);
const when: Date = catalogue.state.date;
const id: string = catalogue.state.id;
const price: string = catalogue.state.price;
const bytes: Uint8Array = catalogue.state.bytes;
const selection: Set<number> = catalogue.state.selection;
const tags: Set<string> = catalogue.state.tags;
const scores: Record<string, number> = catalogue.state.scores;
const labels: Set<Tag> = catalogue.state.labels;
const address: Address = catalogue.state.address;
const pair: Pair = catalogue.state.pair;
const lastError: string | null = catalogue.state.lastError;
const shape: Shape = catalogue.state.shape;
if (shape.case === 'circle') console.log(shape.radius); // narrowed by its case: a ShapeCircle
else if (shape.case === 'rectangle') console.log(shape._0 * shape._1);
catalogue.onChange((changes: Partial<ValueCatalogueState>) => console.log(changes.date?.toISOString()));
await catalogue.setDate(new Date('2026-01-01T09:30:00Z'));
await catalogue.setPrice('0.3');
await catalogue.setBytes(new Uint8Array([0, 1]));
await catalogue.setSelection(new Set([1, 2]));
await catalogue.setTags(new Set(['x']));
await catalogue.setScores({ a: 1 });
await catalogue.setShape({ case: 'rectangle', _0: 2, _1: 3 });
await catalogue.set('shape', { case: 'point' });
await catalogue.setLabels(new Set([{ name: 'home', colour: 'green' }]));
await catalogue.setContext({ 1: ['x'] });
await catalogue.reset();
const state = await catalogue.waitUntil((s) => s.shape.case === 'point');
console.log(when, id, price, bytes, selection, tags, scores, labels, address, pair, lastError, state.date.getTime());

const todo = await TodoListSession.open(client);
await todo.setNewTitle('Buy milk');
await todo.setNewDue(new Date('2026-01-01T09:30:00Z'));
await todo.setNewDue(null);
await todo.add();
const row: TodoItem = todo.state.items[0];
await todo.toggle(row); // the row as shown names it
const due: Date | null | undefined = row.due;
console.log(due?.getTime());

const order = await OrderSession.open(client);
const cup: Product = order.state.catalog[1];
await order.add(cup);
const total: string = order.state.total;
const line: OrderLine = order.state.lines[0];
await order.remove(line);
const placed: string | null = order.state.placedOrderID;
console.log(total, placed);

const search = await SearchSession.open(client);
await search.setQuery('the');
const loadState: LoadState = search.state.state;
if (loadState.case === 'loaded') {
  const films: Film[] = loadState._0; // narrowed: a LoadStateLoaded
  console.log(films.map((film) => film.title));
} else if (loadState.case === 'failed') {
  console.log(loadState._0.toUpperCase());
}

const favorites = await FavoritesSession.open(client);
await favorites.setFavoriteIDs(new Set([1]));
await favorites.toggleFavorite(favorites.state.shown[1]);
const errors: Record<string, string> = favorites.state.errors;
console.log(errors);

// Child view models: a typed session per child, from its parent's accessors.
const app = await TabbedAppSession.open(client);
const counters: CountersTabViewModelSession = app.countersTab();
await counters.add();
const rows: CounterRowViewModelSession[] = counters.rows();
await rows[0].increment();
await rows[0].setTitle('Cups');
const count: number = rows[0].state.count;
await counters.moveToTop(rows[0].state.id);
await app.profileTab().setName('Ada');
await app.clockTab().start();
await app.showDetail(1);
const detail: CounterRowViewModelSession | null = app.detail();
const ref: ChildRef = app.state.countersTab;
const plain: Session | null = app.session.child('detail');
console.log(count, detail?.state.summary, ref.session, plain?.parent?.id, app.session.rows.name);
await client.close();
