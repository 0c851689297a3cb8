// Values as text and back, by schema type (protocol.md, "Schemas" and "Value types").
// Pure functions: the page uses them, and test/values.test.mjs runs them in Node.

/** The kind of control a writable field gets. */
export function controlKind(type) {
  switch (type.type) {
    case 'string': return 'text';
    case 'integer': case 'number': return 'number';
    case 'boolean': return 'checkbox';
    case 'enum': return 'select';
    default: return 'json'; // arrays and objects: JSON text
  }
}

/** The text a control shows for a value. */
export function controlText(type, value) {
  if (value === null || value === undefined) return '';
  switch (controlKind(type)) {
    case 'text': case 'select': return String(value);
    case 'number': return String(value);
    case 'json': return JSON.stringify(value);
    default: return String(value);
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
