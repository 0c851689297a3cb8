// Reads [[value, type], ...] (JSON on stdin: values as a daemon sent them, each with its member's
// schema type object) and writes a JSON list of TypeScript expressions: each value as
// bindery-client's typed sessions read it (decodeValue: Date, Uint8Array, Set), written as source.
// clients/python/tests/test_wire_types.py assigns them to the generated types under tsc --strict.
import { readFileSync } from 'node:fs';
import { decodeValue } from '../lib/values.js';

function literal(value) {
  if (value instanceof Date) return `new Date(${JSON.stringify(value.toISOString())})`;
  if (value instanceof Uint8Array) return `new Uint8Array([${[...value].join(', ')}])`;
  if (value instanceof Set) return `new Set([${[...value].map(literal).join(', ')}])`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{ ${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${literal(item)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

const pairs = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(pairs.map(([value, type]) => literal(decodeValue(value, type ?? undefined)))));
