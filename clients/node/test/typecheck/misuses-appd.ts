// A script that misuses the typings generated for appd's view models: `tsc --strict --noEmit` must
// reject it, with exactly the errors marked `// error TS…` (test/typecheck.test.js generates
// appd-types beside a copy of it and checks the lines and the codes).
import { Client } from 'bindery-client';
import {
  CounterRowViewModelSession, OrderSession, SearchSession, TabbedAppSession, TodoListSession, ValueCatalogueSession,
} from './appd-types.js';

const client = await Client.spawn({ deterministic: true });
const catalogue = await ValueCatalogueSession.open(client);

// Native values, not their wire forms.
await catalogue.setDate('2026-01-01T09:30:00Z'); // error TS2345
await catalogue.setBytes('AAEC+g=='); // error TS2345
await catalogue.setTags(['x']); // error TS2345
const when: string = catalogue.state.date; // error TS2322
const price: number = catalogue.state.price; // error TS2322
await catalogue.setScores({ a: '1' }); // error TS2322

// Unions: a case that does not exist, a member of another case.
await catalogue.setShape({ case: 'circl', radius: 1 }); // error TS2820
await catalogue.setShape({ case: 'circle', _0: 1 }); // error TS2345
const shape = catalogue.state.shape;
console.log(shape.radius); // error TS2339
const search = await SearchSession.open(client);
const state = search.state.state;
if (state.case === 'failed') {
  const films: Array<{ title: string }> = state._0; // error TS2322
  console.log(films);
}

// Rows: the right type, whole.
const todo = await TodoListSession.open(client);
await todo.toggle({ title: 'Buy milk' }); // error TS2345
const order = await OrderSession.open(client);
await order.add(order.state.lines[0]); // error TS2345
console.log(when, price);

// Child view models: typed sessions, not their {session: id}; a detail may be null.
const app = await TabbedAppSession.open(client);
await app.countersTab().setTotal(3); // error TS2339
await app.detail().increment(); // error TS2531
const rows: CounterRowViewModelSession[] = app.countersTab(); // error TS2740
await app.countersTab().rows()[0].setTitle(1); // error TS2345
const tab: number = app.state.countersTab; // error TS2322
console.log(rows, tab);
