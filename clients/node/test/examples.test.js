// The examples run as they are and end cleanly.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { GUARD_MS, PACKAGE_DIR, daemonPath } from '../test-support/daemon.js';

const run = promisify(execFile);

const expectations = {
  'email-form.mjs': [/typed "a@b\.co" +-> isValid true/, /ReadOnlyFieldError/, /exitCode: 0/],
  'login-flow.mjs': [/logged in as/, /failed: .*rejected Mallory/, /aborted: the daemon said "Request cancelled: by the client"/],
  'movies.mjs': [/list 2 now lists: Alien \(excellent\), Heat \(good\), Cats \(terrible\)/, /both lists agree: true/],
};

for (const [name, patterns] of Object.entries(expectations)) {
  test(`example ${name}`, async () => {
    const { stdout } = await run(process.execPath, [path.join(PACKAGE_DIR, 'examples', name)], {
      env: { ...process.env, BINDERYD: daemonPath() },
      timeout: GUARD_MS,
    });
    for (const pattern of patterns) assert.match(stdout, pattern);
  });
}
