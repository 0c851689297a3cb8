// List splices (protocol.md, "List splices"): how a didChange edits a list instead of resending it.
//
// With the `splices` capability, a didChange may carry `splices: {member: {ops, length}}`: each op
// `{at, delete, insert}` removes `delete` elements at index `at` and inserts `insert` there, in
// order, on the value the client last had; `length` is the list's length after them.

const isCount = (value) => Number.isInteger(value) && value >= 0;

/**
 * The list `splice` makes of `value`, as a new array (`value` is left as it was: state objects
 * already handed out keep what they showed). Null when the splice does not fit: `value` is not an
 * array, an op reaches past its end, or the result has another `length` than the daemon's. Then
 * the client is out of step and must fetch the state (session/state) rather than guess.
 * @param {unknown} value
 * @param {{ ops: Array<{ at: number, delete: number, insert: unknown[] }>, length: number }} splice
 * @returns {unknown[] | null}
 */
export function applySplice(value, splice) {
  if (!Array.isArray(value) || !Array.isArray(splice?.ops) || !isCount(splice.length)) return null;
  let result = value;
  for (const op of splice.ops) {
    const { at, delete: remove, insert } = op ?? {};
    if (!isCount(at) || !isCount(remove) || !Array.isArray(insert) || at + remove > result.length) return null;
    // concat, not splice(at, remove, ...insert): spreading a long insert would overflow the stack.
    result = result.slice(0, at).concat(insert, result.slice(at + remove));
  }
  return result.length === splice.length ? result : null;
}
