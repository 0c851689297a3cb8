// The clock control: shown only when the daemon runs on the virtual clock (`--deterministic`: the
// daemon agreed `initialize`'s `clock` capability, protocol.md), it moves that clock by a number of
// milliseconds with `clock/advance`, so that timers, debounces and async commands move on in the
// forms and a recording (the Record button) holds the advance, and so replays exactly.

/** Shows the control beside the Record button when `capabilities.clock`, else removes it. */
export function showClock(connection, capabilities) {
  let control = document.getElementById('clock');
  if (!capabilities || capabilities.clock !== true) {
    if (control) control.remove();
    return;
  }
  if (!control) {
    control = build();
    document.getElementById('record').before(control);
  }
  control.connection = connection; // the connection of this initialize (a reconnect brings another)
}

function build() {
  const form = document.createElement('form');
  form.id = 'clock';
  form.title = 'The daemon runs on a virtual clock (--deterministic): time moves only when you advance it';
  const ms = document.createElement('input');
  Object.assign(ms, { type: 'number', name: 'ms', min: '0', step: '1', value: '1000', required: true });
  ms.setAttribute('aria-label', 'Milliseconds to advance the virtual clock by');
  const advance = document.createElement('button');
  Object.assign(advance, { type: 'submit', textContent: 'Advance clock' });
  advance.dataset.action = 'advance-clock';
  const now = document.createElement('output');
  now.setAttribute('aria-live', 'polite');
  now.textContent = 'at 0 ms';
  form.append(ms, ' ms ', advance, ' ', now);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    advance.disabled = true;
    try {
      // Answered once everything due on the way has run: the forms have their changes by then.
      const result = await form.connection.request('clock/advance', { ms: Number(ms.value) });
      now.textContent = 'at ' + result.now + ' ms';
    } catch (error) {
      now.textContent = error.message;
    } finally {
      advance.disabled = false;
    }
  });
  return form;
}
