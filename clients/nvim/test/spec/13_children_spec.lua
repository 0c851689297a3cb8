-- Child view models (protocol.md, "Child view models") against the real appd
-- (Examples/AppViewModels): tabbedApp's tabs, counter rows and detail drawn
-- nested in one buffer, each row's buttons and fields its own session's.
local T = require('helpers')

local api = vim.api

-- Records every change of buf's text as {first, last, new_last}.
local function recorder(buf)
  local seen = {}
  api.nvim_buf_attach(buf, false, {
    on_lines = function(_, _, _, first, last, new_last)
      if seen.stop then return true end
      seen[#seen + 1] = { first, last, new_last }
    end,
  })
  return seen
end

-- The row (1-based) of the first line matching a Lua pattern.
local function find(pattern)
  for i, line in ipairs(api.nvim_buf_get_lines(0, 0, -1, false)) do
    if line:find(pattern) then return i end
  end
  error('no line matches ' .. vim.inspect(pattern), 2)
end

-- <CR> on a button: the line matching pattern, the column of label there.
local function press(pattern, label)
  local row = find(pattern)
  local line = api.nvim_buf_get_lines(0, row - 1, row, false)[1]
  T.cursor(row, (label and line:find('[ ' .. label .. ' ]', 1, true) or line:find('%[')) - 1)
  T.input('<CR>')
end

-- Answers the next vim.ui.input with text.
local function answer(text)
  vim.ui.input = function(_, on_confirm) on_confirm(text) end
end

local function rows()
  local found = {}
  for _, line in ipairs(api.nvim_buf_get_lines(0, 0, -1, false)) do
    local id = line:match('^    %- %[ Increment %] %[ Reset %] Id: (%d+)')
    if id then found[#found + 1] = tonumber(id) end
  end
  return found
end

T.test('children: tabbedApp draws its tabs, rows and detail nested, each live and editable', function()
  vim.g.bindery_cmd = T.appd
  vim.g.bindery_args = { '--deterministic' }
  vim.cmd('BinderyOpen tabbedApp')
  local buf = api.nvim_get_current_buf()
  local form = T.form()
  local expected = ([[
    == tabbedApp ==
    Selected tab: counters
    Clock tab:
      Ticks: 0
      Is running: false
      [ Start ]
      [ Stop ]
    Profile tab:
      Name:
      Can save: false
    Counters tab:
      New title:
      Rows: (none)
      Total: 0
      [ Add ]
      [ Remove ]
      [ Move to top ]
    Detail: (none)

    [ Show detail ]
    [ Hide detail ]
  ]]):gsub('(Name:)\n', '%1 \n'):gsub('(New title:)\n', '%1 \n')
  T.expect_buffer(expected)

  -- Two rows, each a line with its own buttons and its title under it.
  press('^  %[ Add %]')
  T.wait(function() return #rows() == 1 end, 'the first row')
  press('^  %[ Add %]')
  T.wait(function() return #rows() == 2 end, 'the second row')
  T.eq({ 1, 2 }, rows(), 'the rows in order')
  T.truthy(T.text():find('      Title: Counter 2', 1, true), 'the second row\'s title')

  -- The second row's [ Increment ] runs on that row's session; only its line
  -- (and the tab's total) is rewritten.
  local changes = recorder(buf)
  local first_row = find('Id: 1 ')
  press('Id: 2 ', 'Increment')
  T.wait(function() return T.text():find('Id: 2 · Count: 1 · Summary: Counter 2: 1', 1, true) end, 'the increment')
  T.wait(function() return T.text():find('  Total: 1', 1, true) end, 'the total')
  changes.stop = true
  for _, change in ipairs(changes) do
    T.eq(change[1] + 1, change[2], 'one line replaced')
    T.eq(change[2], change[3], 'by one line')
    T.truthy(change[1] ~= first_row - 1 and change[1] ~= first_row, 'the first row untouched')
  end
  T.truthy(T.text():find('Id: 1 · Count: 0', 1, true), 'the first row unchanged')

  -- moveToTop(id) is a button of the tab taking an integer: the rows follow,
  -- and the cursor stays on the row it was on.
  T.cursor(find('Id: 1 '), 4)
  local row_two = form.children[6]
  T.truthy(row_two and row_two.type == 'CounterRowViewModel', 'row 2 is session 6')
  answer('2')
  press('^  %[ Move to top %]')
  T.wait(function() return vim.deep_equal(rows(), { 2, 1 }) end, 'row 2 on top')
  T.eq('      Title: Counter 2', api.nvim_buf_get_lines(0, find('Id: 2 '), find('Id: 2 ') + 1, false)[1], 'its title moved with it')

  -- A title typed into a row goes to that row's session.
  T.cursor(find('^      Title: Counter 1'), 0)
  T.input('cc')
  T.type('Cups')
  T.input('<Esc>')
  T.wait(function() return T.text():find('Id: 1 · Count: 0 · Summary: Cups: 0', 1, true) end, 'the row\'s summary')
  T.eq('Cups', T.request('session/state', { session = 5 }).state.title, 'the row\'s title in the daemon')

  -- Removing a row detaches its session: its lines go, its form is closed.
  answer('2')
  press('^  %[ Remove %]')
  T.wait(function() return vim.deep_equal(rows(), { 1 }) end, 'row 2 removed')
  T.truthy(row_two.closed, 'the removed row\'s session is forgotten')
  T.eq(nil, require('bindery.daemon').sessions[6], 'no didChange goes to it')

  -- The detail: an optional child appears, is live, and goes.
  answer('1')
  press('^%[ Show detail %]')
  T.wait(function() return T.text():find('Detail:\n  Id: 1\n  Title: Cups\n  Count: 0', 1, true) end, 'the detail')
  press('^  %[ Increment %]') -- the detail's own button
  T.wait(function() return T.text():find('Detail:\n  Id: 1\n  Title: Cups\n  Count: 1', 1, true) end, 'the detail incremented')
  press('^%[ Hide detail %]')
  T.wait(function() return T.text():find('\nDetail: (none)\n', 1, true) end, 'the detail gone')

  -- The clock tab's timer, on the deterministic clock.
  press('^  %[ Start %]')
  T.wait(function() return T.text():find('  Is running: true', 1, true) end, 'the timer started')
  T.request('clock/advance', { ms = 3000 })
  T.wait(function() return T.text():find('Clock tab:\n  Ticks: 3\n', 1, true) end, 'three ticks')
  press('^  %[ Stop %]')
  T.wait(function() return T.text():find('  Is running: false', 1, true) end, 'the timer stopped')
end)

T.test('children: the profile tab\'s field is typed in place; closing the form closes its children', function()
  vim.g.bindery_cmd = T.appd
  vim.g.bindery_args = { '--deterministic' }
  vim.cmd('BinderyOpen tabbedApp')
  local form = T.form()
  T.cursor(find('^  Name:'), 0)
  T.input('A')
  T.type('Ada')
  T.input('<Esc>')
  T.wait(function() return T.text():find('  Name: Ada\n  Can save: true', 1, true) end, 'canSave')
  T.eq('Ada', T.request('session/state', { session = 3 }).state.name, 'the name in the daemon')
  local daemon = require('bindery.daemon')
  T.truthy(daemon.sessions[3], 'the profile tab is a session')
  require('bindery').close()
  T.eq(nil, daemon.sessions[3], 'closed with its parent')
  T.truthy(form.closed, 'the form is closed')
end)
