local T = require('helpers')

local function state()
  return T.request('session/state', { session = T.form().session }).state
end

local function survey(name, company)
  local function shown(v) return v ~= '' and v or '--' end
  return table.concat({
    '== survey ==',
    'Name: ' .. name,
    'Company: ' .. company,
    'Years of experience: ',
    'Current employer?: [ ]',
    'Approximate salary: ',
    'Comments: ',
    'Experience: --',
    'Salary: --',
    'Summary: Name: ' .. shown(name),
    '         Company: ' .. shown(company),
    '         Experience: --',
    '         Current Employer?: NO',
    '         approx Salary: --',
    '         Comments: --',
  }, '\n')
end

-- Waits until the form's undo and redo requests are answered.
local function answered()
  local form = T.form()
  T.wait(function() return next(form.history) == nil end, 'the undo or redo to be answered')
end

local function count(pattern)
  local n = 0
  for _, message in ipairs(T.messages) do
    if message:find(pattern) then n = n + 1 end
  end
  return n
end

T.test('undo: u undoes a burst of typing in the daemon, <C-r> redoes it', function()
  vim.cmd('BinderyOpen survey')
  T.eq(-1, vim.bo.undolevels, "the buffer's own undo levels")
  local form = T.form()
  -- Three writes of one field with no pause on the daemon's (virtual)
  -- clock: one step.
  vim.g.bindery_debounce_ms = 1
  T.goto_line('Name:')
  T.input('A')
  for _, char in ipairs({ 'A', 'd', 'a' }) do
    T.type(char)
    T.wait(function() return #form.conn.mirror.pending == 0 and next(form.timers) == nil end, 'the write of ' .. char)
  end
  T.input('<Esc>')
  vim.g.bindery_debounce_ms = nil
  T.expect_buffer(survey('Ada', ''))
  T.input('u')
  T.expect_buffer(survey('', ''))
  T.input('<C-r>')
  T.expect_buffer(survey('Ada', ''))
  -- A second field is a second step.
  T.goto_line('Company:')
  T.input('A')
  T.type('Engines')
  T.input('<Esc>')
  T.expect_buffer(survey('Ada', 'Engines'))
  T.input('u')
  T.expect_buffer(survey('Ada', ''))
  T.input('u')
  T.expect_buffer(survey('', ''))
  answered()
  -- The last step was undone: no message about it.
  T.eq(0, count('nothing to undo'), 'messages so far')
  -- Nothing left: a message says so and nothing changes.
  T.input('u')
  answered()
  T.eq(1, count('^Bindery: nothing to undo$'), 'the message')
  T.expect_buffer(survey('', ''))
  T.input('<C-r>')
  T.expect_buffer(survey('Ada', ''))
  T.input('<C-r>')
  T.expect_buffer(survey('Ada', 'Engines'))
  answered()
  T.eq(0, count('nothing to redo'), 'messages so far')
  T.input('<C-r>')
  answered()
  T.eq(1, count('^Bindery: nothing to redo$'), 'the message')
  local s = state()
  T.eq({ 'Ada', 'Engines' }, { s.name, s.companyName }, 'in the daemon')
  T.eq(-1, vim.bo.undolevels, "the buffer's own undo levels")
end)

T.test('undo: a pause starts a new step; a write waiting for its pause goes first', function()
  vim.cmd('BinderyOpen survey')
  T.goto_line('Name:')
  T.input('A')
  T.type('Ada')
  T.input('<Esc>')
  T.expect_buffer(survey('Ada', ''))
  -- A second on the daemon's clock: typing again is a new step.
  T.request('clock/advance', { ms = 1000 })
  T.input('A')
  T.type(' L')
  T.input('<Esc>')
  T.expect_buffer(survey('Ada L', ''))
  T.input('u')
  T.expect_buffer(survey('Ada', ''))
  -- A Normal-mode edit waits for its pause before it is sent; u sends it
  -- first, as a step of its own, and undoes that, not the step before.
  T.request('clock/advance', { ms = 1000 })
  vim.g.bindery_debounce_ms = 60000
  T.goto_line('Name:')
  T.input('$x')
  T.truthy(T.form().timers.name, 'the write waiting')
  T.eq('Ada', state().name, 'not sent yet')
  T.input('u')
  answered()
  T.expect_buffer(survey('Ada', ''))
  T.eq('Ada', state().name, 'in the daemon')
  vim.g.bindery_debounce_ms = nil
  -- U is undo too (Vim's own would bring back a stale line).
  T.input('U')
  T.expect_buffer(survey('', ''))
  T.eq(vim.NIL, state().name, 'in the daemon')
end)
