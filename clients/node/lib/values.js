// Native JavaScript values to and from the daemon's wire forms (protocol.md, "Value types").
//
// encodeValue(value, type) turns what a script passes into JSON: a Date into ISO 8601 in UTC with
// milliseconds, a Uint8Array (a Buffer too), ArrayBuffer or DataView into base64, a Set into an
// array, a Map into an object (keys as strings), a bigint into an exact decimal string where the
// type is a Decimal (else a number, when it is a safe integer); arrays and plain objects are encoded
// item by item, and an object with toJSON is encoded as what that returns. JSON values pass through.
// The schema's type object, when given, is followed into arrays, objects, dictionaries and unions.
//
// decodeValue(value, type) reads a value as the daemon sent it into native values by its type
// object: `format: "date-time"` gives a Date, `"byte"` a Uint8Array, an array with `uniqueItems` a
// Set; dictionaries, objects and unions give plain objects of decoded values. UUIDs, URLs, decimals
// (exact: JavaScript has no decimal type) and errors stay strings, enums their raw value. A value
// whose type needs no conversion is returned as it is, not copied.
import { InvalidParamsError } from './errors.js';

const ISO_DATE_TIME = /^\d{4,}-\d\d-\d\d[Tt ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:[Zz]|[+-]\d\d:?\d\d)$/;

function refuse(message, found) {
  return new InvalidParamsError(message, { data: { found }, local: true });
}

function members(type) {
  const found = new Map();
  for (const member of type?.members ?? []) if (member && typeof member.name === 'string') found.set(member.name, member);
  return found;
}

function caseMembers(type, value) {
  const found = (type?.cases ?? []).find((c) => c && typeof c === 'object' && c.name === value?.case);
  return members(found);
}

function describe(value) {
  return value?.constructor?.name ?? typeof value;
}

function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function isPlainObject(value) {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * `value` in the wire form the daemon reads, following `type` (a schema type object) when given.
 * Throws InvalidParamsError (local) for a value with no wire form (an invalid Date, a function, a
 * bigint beyond a number's exact range where no Decimal is expected).
 * @param {unknown} value
 * @param {object} [type]
 */
export function encodeValue(value, type) {
  const kind = type?.type;
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') {
    if (type?.format === 'decimal') return value.toString(); // exact, however many digits
    if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
    throw refuse(`a bigint beyond a number's exact range (${value}) can only be sent where a Decimal is expected`, 'bigint');
  }
  if (typeof value !== 'object') throw refuse(`cannot send a ${typeof value}`, typeof value);
  if (value instanceof Date) { // ISO 8601 in UTC with milliseconds, as the daemon writes dates
    if (Number.isNaN(value.getTime())) throw refuse('an invalid Date cannot be sent', 'Invalid Date');
    return value.toISOString();
  }
  if (ArrayBuffer.isView(value)) return base64(value);
  if (value instanceof ArrayBuffer) return base64(new Uint8Array(value));
  const items = kind === 'array' ? type.items : undefined;
  if (value instanceof Set) {
    return [...value].map((item) => encodeValue(item, items))
      .map((item) => [JSON.stringify(item), item]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item);
  }
  if (Array.isArray(value)) return value.map((item) => encodeValue(item, items));
  if (value instanceof Map) return encodeEntries([...value], type);
  if (typeof value.toJSON === 'function') return encodeValue(value.toJSON(), type);
  if (!isPlainObject(value)) {
    throw refuse(`cannot send a ${describe(value)}: Bindery's values are JSON, Date, Uint8Array, Set, Map, `
      + 'bigint, and arrays and plain objects of them', describe(value));
  }
  return encodeEntries(Object.entries(value), type);
}

function encodeEntries(entries, type) {
  const kind = type?.type;
  const typed = kind === 'union' ? caseMembers(type, Object.fromEntries(entries)) : members(type);
  const result = {};
  for (const [key, item] of entries) {
    if (item === undefined) continue; // as JSON.stringify leaves it out
    const name = typeof key === 'string' ? key : encodeKey(key);
    result[name] = encodeValue(item, kind === 'dictionary' ? type.values : typed.get(name));
  }
  return result;
}

function encodeKey(key) {
  if (typeof key === 'number' || typeof key === 'bigint') return String(key);
  const encoded = encodeValue(key);
  if (typeof encoded === 'string') return encoded;
  throw refuse(`a dictionary key must be a string, a number or a value sent as a string (a Date), not ${describe(key)}`,
    describe(key));
}

/**
 * Whether decodeValue by this type object can give anything other than the JSON as sent.
 * @param {object} [type]
 */
export function typeConverts(type) {
  switch (type?.type) {
    case 'string': return type.format === 'date-time' || type.format === 'byte';
    case 'array': return Boolean(type.uniqueItems) || typeConverts(type.items);
    case 'dictionary': return typeConverts(type.values);
    case 'object': return [...members(type).values()].some(typeConverts);
    case 'union': return (type.cases ?? []).some((c) => [...members(c).values()].some(typeConverts));
    default: return false;
  }
}

/**
 * A value as the daemon sent it, read as native values by its type object. Throws a TypeError for a
 * string that is not in its format's form.
 * @param {unknown} value
 * @param {object} [type]
 */
export function decodeValue(value, type) {
  if (value === null || value === undefined || !typeConverts(type)) return value;
  switch (type.type) {
    case 'string':
      if (typeof value !== 'string') return value;
      if (type.format === 'date-time') {
        const date = new Date(value);
        if (!ISO_DATE_TIME.test(value) || Number.isNaN(date.getTime())) {
          throw new TypeError(`not an ISO 8601 date-time with an offset: ${JSON.stringify(value)}`);
        }
        return date;
      }
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
        throw new TypeError(`not base64: ${JSON.stringify(value)}`);
      }
      return new Uint8Array(Buffer.from(value, 'base64'));
    case 'array': {
      if (!Array.isArray(value)) return value;
      const items = value.map((item) => decodeValue(item, type.items));
      return type.uniqueItems ? new Set(items) : items;
    }
    case 'dictionary':
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, decodeValue(item, type.values)]));
    default: { // object, union
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const typed = type.type === 'union' ? caseMembers(type, value) : members(type);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, decodeValue(item, typed.get(key))]));
    }
  }
}
