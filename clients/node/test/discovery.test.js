// Finding binderyd: explicit path, $BINDERYD, PATH, the repository's build folders.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { DaemonNotFoundError, findDaemon, repositoryBuildDirs } from '../index.js';
import { REPO_ROOT } from '../test-support/daemon.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'bindery-discovery-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function executable(dir, name = 'binderyd', mode = 0o755) {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, mode);
  return file;
}

const explicit = executable(path.join(scratch, 'explicit'));
const fromEnv = executable(path.join(scratch, 'env'));
const onPath = executable(path.join(scratch, 'bin'));
const release = path.join(scratch, 'build', 'release');
const debug = path.join(scratch, 'build', 'debug');
const debugDaemon = executable(debug);
const notExecutable = executable(path.join(scratch, 'plain'), 'binderyd', 0o644);

test('the order: explicit, then $BINDERYD, then PATH, then the build folders', () => {
  const env = { BINDERYD: fromEnv, PATH: path.dirname(onPath) };
  const buildDirs = [release, debug];
  assert.equal(findDaemon({ daemon: explicit, env, buildDirs }), explicit);
  assert.equal(findDaemon({ env, buildDirs }), fromEnv);
  assert.equal(findDaemon({ env: { PATH: env.PATH }, buildDirs }), onPath);
  assert.equal(findDaemon({ env: { PATH: path.join(scratch, 'nothing') }, buildDirs }), debugDaemon);
});

test('$BINDERYD that is unusable falls through to the next place, and is named in the error', () => {
  const buildDirs = [release, debug];
  assert.equal(findDaemon({ env: { BINDERYD: notExecutable, PATH: '' }, buildDirs }), debugDaemon);
  const error = (() => {
    try {
      return findDaemon({ env: { BINDERYD: notExecutable, PATH: path.join(scratch, 'nothing') }, buildDirs: [release] });
    } catch (caught) {
      return caught;
    }
  })();
  assert.ok(error instanceof DaemonNotFoundError);
  assert.equal(error.tried.length, 3);
  assert.match(error.tried[0], /BINDERYD=.*is not executable/);
  assert.match(error.tried[1], /^PATH .*no binderyd/);
  assert.match(error.tried[2], /build\/release\/binderyd: does not exist/);
  for (const place of error.tried) assert.ok(error.message.includes(place));
});

test('an explicit path is used or refused, never replaced by another daemon', () => {
  const env = { BINDERYD: fromEnv, PATH: path.dirname(onPath) };
  assert.throws(() => findDaemon({ daemon: path.join(scratch, 'missing'), env }), (error) => error instanceof DaemonNotFoundError
    && error.tried.length === 1 && /does not exist/.test(error.message));
  assert.throws(() => findDaemon({ daemon: path.join(scratch, 'explicit'), env }), /is a directory/);
  // A bare name is looked up on PATH, then in ~/.local/bin (where scripts/install puts it).
  assert.equal(findDaemon({ daemon: 'binderyd', env }), onPath);
  const installed = executable(path.join(scratch, 'home', '.local', 'bin'), 'bindery-installed');
  assert.equal(findDaemon({ daemon: 'bindery-installed', env: { ...env, HOME: path.join(scratch, 'home') } }), installed);
});

test('nothing set: "$BINDERYD: not set" and every other place in the message', () => {
  assert.throws(() => findDaemon({ env: {}, buildDirs: [release, path.join(scratch, 'nope')] }), (error) => {
    assert.equal(error.tried.length, 4);
    assert.equal(error.tried[0], '$BINDERYD: not set');
    assert.match(error.tried[1], /^PATH \(\): no binderyd/);
    assert.equal(error.tried[2], `${path.join(release, 'binderyd')}: does not exist`);
    assert.equal(error.tried[3], `${path.join(scratch, 'nope', 'binderyd')}: does not exist`);
    return true;
  });
});

test('the repository build folders are relative to the package: clients/node/../../.build', () => {
  assert.deepEqual(repositoryBuildDirs(), [path.join(REPO_ROOT, '.build', 'release'), path.join(REPO_ROOT, '.build', 'debug')]);
});

test('~/.local/bin/binderyd (where scripts/install puts it) comes after PATH, before the build folders', () => {
  const home = path.join(scratch, 'home');
  const installed = executable(path.join(home, '.local', 'bin'));
  const buildDirs = [release, debug];
  assert.equal(findDaemon({ env: { HOME: home, PATH: path.join(scratch, 'nothing') }, buildDirs }), installed);
  assert.equal(findDaemon({ env: { HOME: home, PATH: path.dirname(onPath) }, buildDirs }), onPath);
  assert.equal(findDaemon({ env: { HOME: path.join(scratch, 'nohome'), PATH: '' }, buildDirs }), debugDaemon);
});

test('not found: the message lists ~/.local/bin and names ./scripts/install as the fix', () => {
  const home = path.join(scratch, 'empty-home');
  assert.throws(() => findDaemon({ env: { HOME: home, PATH: '' }, buildDirs: [] }), (error) => {
    assert.ok(error instanceof DaemonNotFoundError);
    assert.deepEqual(error.tried.slice(-1), [`${path.join(home, '.local', 'bin', 'binderyd')}: does not exist`]);
    assert.match(error.message, /run `\.\/scripts\/install`/);
    assert.match(error.message, /~\/\.local\/bin/);
    return true;
  });
});
