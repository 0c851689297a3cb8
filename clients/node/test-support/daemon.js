// Shared by the tests (kept outside test/, where node --test would run it as a test file).
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, findDaemon } from '../index.js';

export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(PACKAGE_DIR, '..', '..');
export const TRANSCRIPTS_DIR = path.join(REPO_ROOT, 'Tests', 'Transcripts');

/** Hang guard for anything that waits on the daemon: generous, never a timing assertion. */
export const GUARD_MS = 15000;

let found;
/**
 * The daemon under test; a missing daemon fails the test with every place searched. A BINDERYD
 * that is set is taken as meant: wrong, it fails rather than falling back to another build.
 */
export function daemonPath() {
  const fromEnv = process.env.BINDERYD;
  try {
    found ??= fromEnv ? findDaemon({ daemon: fromEnv }) : findDaemon();
  } catch (error) {
    if (fromEnv) error.message = `BINDERYD is set, but: ${error.message}`;
    throw error;
  }
  return found;
}

/** A spawned, initialized client that the test closes when it ends. */
export async function spawnClient(t, options = {}) {
  const client = await Client.spawn({ daemon: daemonPath(), timeout: GUARD_MS, ...options });
  t.after(() => client.close());
  return client;
}

/**
 * appd, the daemon of app-shaped example view models (Examples/AppViewModels): $APPD, else the
 * repository's .build/debug/appd. Missing, the tests that need it fail saying how to build it.
 */
export function appdPath() {
  const candidate = process.env.APPD || path.join(REPO_ROOT, '.build', 'debug', 'appd');
  try {
    accessSync(candidate, constants.X_OK);
  } catch {
    throw new Error(`These tests run against appd (Examples/AppViewModels), not found at ${candidate}: `
      + 'build it (swift build --product appd) or set APPD=/path/to/appd');
  }
  return candidate;
}

/** A spawned, initialized client of appd (--deterministic) that the test closes when it ends. */
export async function spawnAppd(t, options = {}) {
  return spawnClient(t, { daemon: appdPath(), deterministic: true, ...options });
}
