// The generated typings (seeds.d.ts, on index.d.ts) under `tsc --strict`: a script using every seed
// type must compile, and one with wrong names and wrong value types must fail with exactly the
// errors it marks. tsc comes from PATH (Debian: apt-get install node-typescript).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appdPath, PACKAGE_DIR, REPO_ROOT } from '../test-support/daemon.js';

const run = promisify(execFile);
const DIR = path.join(PACKAGE_DIR, 'test', 'typecheck');
// node-shim.d.ts stands in for @types/node, which neither Debian nor a registry-less machine has.
const TSC_ARGS = ['--strict', '--noEmit', '--pretty', 'false', '--module', 'node16', '--moduleResolution', 'node16',
  '--target', 'es2022', '--lib', 'es2022,dom', 'node-shim.d.ts'];

async function findTsc() {
  try {
    await run('tsc', ['--version']);
    return 'tsc';
  } catch {
    return null;
  }
}

const tsc = await findTsc();
// Without tsc each test fails, not skips: a skipped check checks nothing. The test command installs it.
const missing = 'tsc is not on PATH, so the typings cannot be checked: run scripts/ensure-tools '
  + '(Debian: apt-get install node-typescript)';

/** tsc's errors as "file:line TSxxxx" strings, in order; `files`: one file or several. */
async function compile(files, cwd = DIR) {
  assert.ok(tsc, missing);
  try {
    await run(tsc, [...TSC_ARGS.map((arg) => (arg.endsWith('.d.ts') ? path.join(DIR, arg) : arg)), ...[files].flat()],
      { cwd, timeout: 120000 });
    return { code: 0, errors: [], output: '' };
  } catch (failure) {
    if (typeof failure.code !== 'number') throw failure;
    const output = `${failure.stdout}${failure.stderr}`;
    const errors = [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+):/gm)]
      .map(([, where, line, code]) => `${path.basename(where)}:${line} ${code}`);
    return { code: failure.code, errors, output };
  }
}

test('tsc --strict accepts a script using every generated seed class', async () => {
  const { code, output } = await compile('uses-seeds.ts');
  assert.equal(code, 0, `tsc rejected uses-seeds.ts:\n${output}`);
});

/** The errors a script in test/typecheck marks (`// error TSxxxx`), as "file:line TSxxxx". */
function markedErrors(name) {
  return readFileSync(path.join(DIR, name), 'utf8').split('\n').flatMap((line, index) => [
    ...line.matchAll(/\/\/ error (TS\d+)/g)].map((match) => `${name}:${index + 1} ${match[1]}`));
}

test('tsc --strict rejects wrong field names and wrong value types, with the marked errors', async () => {
  const expected = markedErrors('misuses-seeds.ts');
  assert.ok(expected.length >= 8, 'misuses-seeds.ts marks its errors');
  const { code, errors, output } = await compile('misuses-seeds.ts');
  assert.notEqual(code, 0, 'tsc accepted misuses-seeds.ts');
  assert.deepEqual(errors, expected, `tsc's errors differ from the marked ones:\n${output}`);
});

test('the generator\'s less common paths give typings tsc accepts and a module Node loads', async (t) => {
  // clients/codegen/testdata/edge-cases.json: keywords and spaces in names, optional members, command
  // args, nested and nullable arrays, two structs named Line, a command named like a session member.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-codegen-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await run('python3', [path.join(REPO_ROOT, 'clients', 'codegen', 'bindery-codegen'),
    '--schema', path.join(REPO_ROOT, 'clients', 'codegen', 'testdata', 'edge-cases.json'),
    '--node', path.join(dir, 'edge.js'), '--node-import', path.join(PACKAGE_DIR, 'index.js')]);
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(dir, 'use-edge.ts'), [
    `import { Client } from ${JSON.stringify(path.join(PACKAGE_DIR, 'index.js'))};`,
    "import { OrderFormSession, OtherSession, type Line, type Line2, type Status } from './edge.js';",
    'const client = await Client.spawn();',
    'const form = await OrderFormSession.open(client);',
    'const lines: Line[] = await form.submit({ dryRun: true });',
    "const line: Line = { sku: 'x', class: 1, 'unit price': null, status: 'draft' };",
    "await form.setTags(['a', null]);",
    'await form.setMatrix([[1, 2], [3]]);',
    'await form.invokeClose();',
    'const total: number | null = await form.count(3);',
    "const status: Status = form.state.status;",
    "const enabled: boolean = form.state['submit.enabled'];",
    'const other: Line2 = (await OtherSession.open(client)).state.line;',
    'console.log(lines, line, total, status, enabled, other.text);',
    '',
  ].join('\n'));
  const { code, output } = await compile('use-edge.ts', dir);
  assert.equal(code, 0, `tsc rejected the code generated from edge-cases.json:\n${output}`);
  const edge = await import(pathToFileURL(path.join(dir, 'edge.js')).href);
  assert.deepEqual(Object.keys(edge), ['OrderFormSession', 'OtherSession']);
  assert.equal(edge.OrderFormSession.type, 'order-form');
  assert.deepEqual(Object.getOwnPropertyNames(edge.OrderFormSession.prototype),
    ['constructor', 'setFrom', 'setStatus', 'setLines', 'setTags', 'setMatrix', 'submit', 'invokeClose', 'count']);
});

test('child view models: a class per type, a type that contains itself, names that clash', async (t) => {
  // clients/codegen/testdata/children.json: a tree node whose rows are nodes (described inside
  // itself by its name only), one child type under two members, a child type named like a selected
  // type (`Badge` beside `badge`: BadgeChildSession), a child member named `state` (childState()).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-codegen-children-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await run('python3', [path.join(REPO_ROOT, 'clients', 'codegen', 'bindery-codegen'),
    '--schema', path.join(REPO_ROOT, 'clients', 'codegen', 'testdata', 'children.json'),
    '--node', path.join(dir, 'outline.js'), '--node-import', path.join(PACKAGE_DIR, 'index.js')]);
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(dir, 'use-outline.ts'), [
    `import { Client } from ${JSON.stringify(path.join(PACKAGE_DIR, 'index.js'))};`,
    "import { BadgeChildSession, NodeViewModelSession, OutlineSession } from './outline.js';",
    'const outline = await OutlineSession.open(await Client.spawn());',
    'const grandchildren: NodeViewModelSession[] = outline.root().children()[0].children();',
    'const badge: BadgeChildSession | null = outline.root().childState();',
    "await outline.pinned()[0].setText('x');",
    'await outline.selection().addChild(); // error TS2531',
    "await outline.root().setText('x'); // error TS2339",
    'console.log(grandchildren, badge);',
    '',
  ].join('\n'));
  const { errors, output } = await compile('use-outline.ts', dir);
  assert.deepEqual(errors, ['use-outline.ts:7 TS2531', 'use-outline.ts:8 TS2339'], output);
  const outline = await import(pathToFileURL(path.join(dir, 'outline.js')).href);
  assert.deepEqual(Object.keys(outline), ['BadgeChildSession', 'BadgeSession', 'NodeViewModelSession', 'OutlineSession']);
  assert.equal(outline.BadgeChildSession.type, 'Badge');
  assert.deepEqual(Object.getOwnPropertyNames(outline.NodeViewModelSession.prototype),
    ['constructor', 'children', 'childState', 'setTitle', 'addChild']);
});

test('typings generated for appd type native values, sets, dictionaries and unions; wrong ones fail', async (t) => {
  // appd's view models (Examples/AppViewModels), described by the real appd: the generated typings
  // beside copies of test/typecheck/uses-appd.ts (accepted) and misuses-appd.ts (the marked errors:
  // a wrong case literal, a member of another case, a wire form where a native value goes...), in
  // a folder whose node_modules/bindery-client is this package. One tsc run checks both.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-appd-types-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(PACKAGE_DIR, path.join(dir, 'node_modules', 'bindery-client'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  await run('python3', [path.join(REPO_ROOT, 'clients', 'codegen', 'bindery-codegen'), '--daemon', appdPath(),
    '--node', path.join(dir, 'appd-types.js')]);
  for (const name of ['uses-appd.ts', 'misuses-appd.ts']) copyFileSync(path.join(DIR, name), path.join(dir, name));
  const expected = markedErrors('misuses-appd.ts');
  assert.ok(expected.length >= 10, 'misuses-appd.ts marks its errors');
  const { code, errors, output } = await compile(['uses-appd.ts', 'misuses-appd.ts'], dir);
  assert.deepEqual(errors.filter((error) => error.startsWith('uses-appd.ts')), [],
    `tsc rejected uses-appd.ts:\n${output}`);
  assert.notEqual(code, 0, 'tsc accepted misuses-appd.ts');
  assert.deepEqual(errors, expected, `tsc's errors in misuses-appd.ts differ from the marked ones:\n${output}`);
});
