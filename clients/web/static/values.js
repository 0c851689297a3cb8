// Values as text and back, by schema type (protocol.md, "Schemas" and "Value types").
// Pure functions: the page uses them, and test/values.test.mjs runs them in Node.

/** The kind of control a writable field gets. */
export function controlKind(type) {
  switch (type.type) {
    case 'string': return 'text'; // with a format: checked as typed (date-time, uuid, uri, decimal, byte)
    case 'integer': case 'number': return 'number';
    case 'boolean': return 'checkbox';
    case 'enum': return 'select';
    case 'union': return 'union'; // its case in a select, its members in inputs
    case 'array': return isScalar(type.items) ? 'list' : 'lines'; // "a, b" / one element a line
    case 'object': case 'dictionary': return 'lines'; // one "key: value" a line
    default: return 'json'; // any
  }
}

/** The text a control shows for a value. */
export function controlText(type, value) {
  if (value === null || value === undefined) return '';
  switch (controlKind(type)) {
    case 'text': case 'select': return String(value);
    case 'number': return String(value);
    case 'list': case 'lines': case 'union': return typeText(type, value, false, controlKind(type) === 'lines' ? '\n' : ', ');
    case 'json': return JSON.stringify(value);
    default: return String(value);
  }
}

// Typed values (protocol.md, "Value types"): string formats, lists and sets, structs,
// dictionaries, unions (enums with payloads), any. As text:
//   a list, a set     1, 2, 5            nested: [1, 2, 5]
//   struct, dict      a: 1, b: [x]       nested: {a: 1, b: [x]}   (in a text area: a line each)
//   union             circle(radius: 1.5), rectangle(2, 3), point
//   any               its JSON
// A string that would read otherwise is written as a JSON string.

const SCALARS = new Set(['string', 'boolean', 'integer', 'number', 'enum']);

export function isScalar(type) {
  return Boolean(type) && SCALARS.has(type.type);
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDateTime(text) {
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[-+]\d\d:?\d\d)$/.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month >= 1 && month <= 12 && day >= 1 && day <= DAYS[month - 1] && !(month === 2 && day === 29 && !leap)
    && hour < 24 && minute < 60 && second < 60;
}

export const FORMATS = {
  'date-time': { check: isDateTime, says: 'a date and time, ISO 8601 like 2025-11-25T10:00:00Z' },
  uuid: { check: (t) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t), says: 'a UUID like 0f8fad5b-d9cb-469f-a165-70867728950e' },
  uri: { check: (t) => /^\S+$/.test(t), says: 'a URL (no spaces) like https://example.com/' },
  decimal: { check: (t) => /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t), says: 'a decimal number like 12.50' },
  byte: { check: (t) => t.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(t), says: 'base64 like AAEC+g==' },
};

/** Why `text` does not fit the format of `type`, or null. */
export function formatError(type, text) {
  const format = type && FORMATS[type.format];
  if (!format || format.check(text)) return null;
  return JSON.stringify(text) + ' is not ' + format.says;
}

function positional(members) {
  return members.length > 0 && members.every((member) => /^_\d+$/.test(member.name));
}

export function unionCase(type, name) {
  return (type.cases || []).find((item) => item.name === name);
}

function nestedString(text) {
  return text === '' || text === 'null' || /[,:[\]{}()"\\\n]|^\s|\s$/.test(text) ? JSON.stringify(text) : text;
}

/** A value of `type` as text; `nested` inside another; `separator` between a top-level list's parts. */
export function typeText(type, value, nested = false, separator = ', ') {
  type = type || { type: 'any' };
  if (value === null || value === undefined) return nested ? 'null' : '';
  if (type.type === 'any') return JSON.stringify(value);
  if (typeof value === 'string') return nested ? nestedString(value) : value;
  if (typeof value !== 'object') return String(value);
  if (type.type === 'union') {
    const members = (unionCase(type, value.case) || { members: [] }).members;
    const bare = positional(members);
    const parts = members.filter((m) => value[m.name] !== undefined && value[m.name] !== null)
      .map((m) => (bare ? '' : m.name + ': ') + typeText(m, value[m.name], true));
    return parts.length ? value.case + '(' + parts.join(', ') + ')' : String(value.case);
  }
  if (Array.isArray(value)) {
    const body = value.map((item) => typeText(type.items, item, true)).join(nested ? ', ' : separator);
    return nested ? '[' + body + ']' : body;
  }
  const members = new Map((type.members || []).map((m) => [m.name, m]));
  const body = Object.entries(value).map(([key, item]) =>
    (/[,:[\]{}()"\s]/.test(key) ? JSON.stringify(key) : key) + ': '
      + typeText(type.type === 'dictionary' ? type.values : members.get(key), item, true)).join(nested ? ', ' : separator);
  return nested ? '{' + body + '}' : body;
}

/** Splits at the commas (and, at the top of a text area, the line breaks) outside brackets and strings. */
function split(text, lines) {
  const parts = [];
  let depth = 0, start = 0, quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if ('[{('.includes(c)) depth++;
    else if (']})'.includes(c)) depth--;
    else if ((c === ',' || (lines && c === '\n')) && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return lines ? parts.filter((part) => part.trim() !== '') : parts;
}

function keyValue(text) {
  text = text.trim();
  const quoted = /^("(?:[^"\\]|\\.)*")\s*:(.*)$/s.exec(text);
  if (quoted) return [JSON.parse(quoted[1]), quoted[2]];
  const plain = /^([^:]*?)\s*:(.*)$/s.exec(text);
  return plain ? [plain[1], plain[2]] : [null, null];
}

function unquote(text) {
  if (text.startsWith('"')) {
    try {
      const value = JSON.parse(text);
      if (typeof value === 'string') return value;
    } catch (error) {
      // not a JSON string: as typed
    }
  }
  return text;
}

function strip(text, open, close) {
  text = text.trim();
  return text.length > 1 && text.startsWith(open) && text.endsWith(close) ? text.slice(1, -1) : text;
}

/** Text -> `{ok: true, value}` or `{ok: false, error}`, for a value of `type`. */
export function typeParse(type, text, nested = false) {
  type = type || { type: 'any' };
  const trimmed = text.trim();
  const fail = (error) => ({ ok: false, error });
  if ((trimmed === '' || (nested && trimmed === 'null')) && (type.nullable || type.optional)) return { ok: true, value: null };
  switch (type.type) {
    case 'any':
      try {
        return { ok: true, value: JSON.parse(trimmed) };
      } catch (error) {
        return fail('not JSON: ' + error.message);
      }
    case 'string': case 'enum': {
      const value = nested ? unquote(trimmed) : (type.format ? trimmed : text);
      if (type.type === 'enum') return type.cases.includes(value) ? { ok: true, value } : fail('one of: ' + type.cases.join(', '));
      const error = formatError(type, value);
      return error ? fail(error) : { ok: true, value };
    }
    case 'boolean':
      return trimmed === 'true' ? { ok: true, value: true } : trimmed === 'false' ? { ok: true, value: false }
        : fail(JSON.stringify(trimmed) + ' is not true or false');
    case 'integer': case 'number': {
      if (trimmed === '') return fail('a number is required');
      const number = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed) ? Number(trimmed) : NaN;
      if (!Number.isFinite(number)) return fail(JSON.stringify(trimmed) + ' is not a number');
      if (type.type === 'integer' && !Number.isInteger(number)) return fail(trimmed + ' is not a whole number');
      return { ok: true, value: number };
    }
    case 'array': {
      const body = strip(trimmed, '[', ']');
      if (body.trim() === '') return { ok: true, value: [] };
      const value = [];
      const parts = split(body, !nested);
      for (let i = 0; i < parts.length; i++) {
        const item = typeParse(type.items, parts[i], true);
        if (!item.ok) return fail('item ' + (i + 1) + ': ' + item.error);
        value.push(item.value);
      }
      return { ok: true, value };
    }
    case 'object': case 'dictionary': {
      const body = strip(trimmed, '{', '}');
      const members = new Map((type.members || []).map((m) => [m.name, m]));
      const value = {};
      if (body.trim() !== '') {
        for (const part of split(body, !nested)) {
          const [key, rest] = keyValue(part);
          if (!key) return fail(JSON.stringify(part.trim()) + ' is not "name: value"');
          const member = type.type === 'dictionary' ? type.values : members.get(key);
          if (!member) return fail('no member ' + JSON.stringify(key) + ' (it has ' + [...members.keys()].join(', ') + ')');
          const parsed = typeParse(member, rest, true);
          if (!parsed.ok) return fail(key + ': ' + parsed.error);
          if (!(parsed.value === null && member.optional)) value[key] = parsed.value;
        }
      }
      for (const member of type.members || []) {
        if (!(member.name in value) && !member.optional) return fail(member.name + ' is missing');
      }
      return { ok: true, value };
    }
    case 'union': {
      const match = /^([\w]+)\s*(?:\((.*)\))?$/s.exec(trimmed);
      const found = match && unionCase(type, match[1]);
      if (!found) return fail(JSON.stringify(trimmed) + ' is not one of: ' + type.cases.map((c) => c.name).join(', '));
      const value = { case: found.name };
      const args = (match[2] || '').trim();
      let position = 0;
      if (args !== '') {
        for (const part of split(args, false)) {
          const [key, rest] = keyValue(part);
          let member = key !== null && found.members.find((m) => m.name === key.trim());
          let given = rest;
          if (!member) {
            member = found.members[position++];
            given = part;
            if (!member) return fail(found.name + ' takes ' + found.members.length + ' values');
          }
          const parsed = typeParse(member, given, true);
          if (!parsed.ok) return fail(member.name + ': ' + parsed.error);
          value[member.name] = parsed.value;
        }
      }
      for (const member of found.members) {
        if (!(member.name in value) && !member.optional && !member.nullable) {
          return fail(found.name + ' needs ' + (positional(found.members) ? found.members.length + ' values' : member.name));
        }
      }
      return { ok: true, value };
    }
    default:
      return fail('cannot read a ' + type.type);
  }
}

/**
 * What a control's text means as a value of the field's type:
 * `{ok: true, value}` or `{ok: false, error}`. `badInput` is the browser's own verdict on a
 * number input whose text is not a number (its value then reads as '').
 */
export function parseText(type, text, badInput = false) {
  const kind = controlKind(type);
  if (kind === 'number') {
    const trimmed = text.trim();
    if (badInput) return { ok: false, error: 'not a number' };
    if (trimmed === '') {
      return type.nullable ? { ok: true, value: null } : { ok: false, error: 'a number is required' };
    }
    const number = Number(trimmed);
    if (!Number.isFinite(number)) return { ok: false, error: 'not a number' };
    if (type.type === 'integer' && !Number.isInteger(number)) return { ok: false, error: 'a whole number is required' };
    return { ok: true, value: number };
  }
  if (kind === 'list' || kind === 'lines' || kind === 'union' || (kind === 'text' && type.format)) {
    return typeParse(type, text);
  }
  if (kind === 'json') {
    if (text.trim() === '' && type.nullable) return { ok: true, value: null };
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      return { ok: false, error: 'not JSON: ' + error.message };
    }
  }
  if (kind === 'select') {
    if (text === '' && type.nullable) return { ok: true, value: null };
    return { ok: true, value: text };
  }
  // Text: an empty nullable string is null, as the editors have it.
  if (text === '' && type.nullable) return { ok: true, value: null };
  return { ok: true, value: text };
}

/** A value on one line, for results and nested cells: `firstName: Ada, lastName: Lovelace`. */
export function inlineText(value) {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(inlineNested).join('; ');
  if (typeof value === 'object') {
    return Object.entries(value).map(([name, member]) => name + ': ' + inlineNested(member)).join(', ');
  }
  return String(value);
}

function inlineNested(value) {
  if (value !== null && typeof value === 'object') {
    return (Array.isArray(value) ? '[' : '{') + inlineText(value) + (Array.isArray(value) ? ']' : '}');
  }
  return inlineText(value);
}

/** Arguments for a constructor, from what a person typed: a JSON object, or `name=value&…`. */
export function parseArgs(text) {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: {} };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value = JSON.parse(trimmed);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        return { ok: false, error: 'arguments are a JSON object' };
      }
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error: 'not JSON: ' + error.message };
    }
  }
  const value = {};
  for (const [name, given] of new URLSearchParams(trimmed.replace(/\s*[,;]\s*/g, '&'))) value[name] = given;
  return { ok: true, value };
}
