// What the page shows for a value: the daemon's text (protocol.md, "Display and text"), never the
// page's own reading of it. The daemon sends `display` for every member that is not a string, a
// list or a child; a string is its own text. It sends none for a list's elements or a command's
// result: those are drawn in the compact form of inlineText, the one place the page writes a value
// (it never reads one back). Pure functions: test/model.test.mjs runs them in Node.

/** The kind of control a writable field gets: a checkbox and a case menu are controls; all else is text. */
export function controlKind(type) {
  if (type.type === 'boolean') return 'checkbox';
  if (type.type === 'enum') return 'select';
  return 'text';
}

/**
 * The one line a member shows: the daemon's `display` text for it, a string itself, nothing for
 * null, and a list (which has no display) its JSON, which the daemon reads back for a list of
 * numbers or strings.
 */
export function memberText(value, display) {
  if (typeof display === 'string') return display;
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * A member's label: its own, else derived from its name as the daemon derives a field's
 * (Exposure.swift, defaultLabel): "isDone" -> "Is done", "placedOrderID" -> "Placed order ID",
 * "URLString" -> "URL string". A list's struct members come with names only.
 */
export function memberLabel(member) {
  if (typeof member.label === 'string') return member.label;
  const name = member.name;
  const upper = (i) => i < name.length && name[i] >= 'A' && name[i] <= 'Z';
  const lower = (i) => i < name.length && name[i] >= 'a' && name[i] <= 'z';
  const words = [];
  let start = 0;
  let index = 0;
  while (index < name.length) {
    let run = index;
    while (upper(run)) run += 1;
    if (run - index > 1) { // a run of capitals: an acronym, kept as it is ("IDs" takes its s)
      let end = run;
      if (lower(run)) end = name[run] === 's' && !lower(run + 1) ? run + 1 : run - 1;
      if (start < index) words.push(name.slice(start, index).toLowerCase());
      words.push(name.slice(index, end));
      start = index = end;
      continue;
    }
    if (upper(index) && start < index) {
      words.push(name.slice(start, index).toLowerCase());
      start = index;
    }
    index += 1;
  }
  if (start < name.length) words.push(name.slice(start).toLowerCase());
  const sentence = words.join(' ');
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** The words shown when the daemon refused a write: what it expected, for text it could not read. */
export function refusal(error) {
  const data = error && error.data;
  if (error && error.code === -32602 && data && typeof data.expected === 'string') return 'expected ' + data.expected;
  return error ? error.message : '';
}

/** A list element or a command's result on one line: `name: value, …`, lists with `;`. */
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

/**
 * Arguments for a constructor (session/open's `args`, which take no text), from what a person
 * typed: a JSON object, or `name=value&…`.
 */
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
