// Finding the binderyd executable.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonNotFoundError } from './errors.js';

export const EXECUTABLE = 'binderyd';
export const ENV_VAR = 'BINDERYD';

/**
 * The Swift build folders of the repository this package sits in (clients/node/lib -> root); empty
 * when the package is a copy installed elsewhere (only a checkout has a build folder next to it).
 */
export function repositoryBuildDirs() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  if (!existsSync(path.join(root, 'Package.swift'))) return [];
  return [path.join(root, '.build', 'release'), path.join(root, '.build', 'debug')];
}

/** `$HOME/.local/bin`, where `scripts/install` puts binderyd; null when HOME is not set. */
export function userBinDir(env = process.env) {
  return env.HOME ? path.join(env.HOME, '.local', 'bin') : null;
}

/**
 * The path of binderyd: `daemon`, else $BINDERYD, else PATH, else ~/.local/bin, else the
 * repository's build.
 *
 * An explicit `daemon` is used or refused, never silently replaced by another executable. The
 * others are tried in turn: `$HOME/.local/bin/binderyd` is where `scripts/install` copies it.
 * DaemonNotFoundError lists every place tried and why each failed, and says to run
 * `./scripts/install`. `env` (its BINDERYD, PATH and HOME) and `buildDirs` replace the real
 * environment and folders, for tests.
 * @param {{ daemon?: string, env?: Record<string, string | undefined>, buildDirs?: string[] }} [options]
 * @returns {string} an absolute path
 */
export function findDaemon({ daemon, env = process.env, buildDirs = repositoryBuildDirs() } = {}) {
  const names = process.platform === 'win32' ? [`${EXECUTABLE}.exe`, EXECUTABLE] : [EXECUTABLE];
  if (daemon !== undefined && daemon !== null) {
    // A bare name ("binderyd") is looked up on PATH, as spawn would, then in ~/.local/bin (where
    // scripts/install puts it, often not on a new user's PATH yet).
    const userBin = userBinDir(env);
    const candidate = daemon.includes('/') || daemon.includes(path.sep) ? daemon
      : searchPath([daemon], env.PATH).found ?? (userBin ? searchPath([daemon], userBin).found : null) ?? daemon;
    const problem = unusable(candidate);
    if (!problem) return path.resolve(candidate);
    throw new DaemonNotFoundError([`the daemon option ${JSON.stringify(daemon)}: ${problem}`]);
  }

  const tried = [];
  const fromEnv = env[ENV_VAR];
  if (fromEnv) {
    const problem = unusable(fromEnv);
    if (!problem) return path.resolve(fromEnv);
    tried.push(`$${ENV_VAR}=${JSON.stringify(fromEnv)}: ${problem}`);
  } else {
    tried.push(`$${ENV_VAR}: not set`);
  }

  const onPath = searchPath(names, env.PATH);
  if (onPath.found) return path.resolve(onPath.found);
  tried.push(`PATH (${env.PATH ?? ''}): no ${EXECUTABLE} in ${onPath.dirs.length} folders`);

  const userBin = userBinDir(env);
  for (const dir of userBin ? [userBin, ...buildDirs] : buildDirs) {
    const candidate = path.join(dir, names[0]);
    const problem = unusable(candidate);
    if (!problem) return candidate;
    tried.push(`${candidate}: ${problem}`);
  }
  throw new DaemonNotFoundError(tried);
}

function searchPath(names, pathValue = '') {
  const dirs = pathValue.split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (!unusable(candidate)) return { found: candidate, dirs };
    }
  }
  return { found: null, dirs };
}

// Why `file` cannot be run, or null when it can.
function unusable(file) {
  let stats;
  try {
    stats = statSync(file);
  } catch {
    return 'does not exist';
  }
  if (stats.isDirectory()) return 'is a directory';
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return 'is not executable';
  }
  return null;
}
