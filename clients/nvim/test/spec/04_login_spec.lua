local T = require('helpers')

local function advance(ms)
  return T.request('clock/advance', { ms = ms })
end

-- The highlight group painted on the first column of a row.
local function group_at(row)
  local ns = vim.api.nvim_get_namespaces().bindery
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, { row - 1, 0 }, { row - 1, 0 }, { details = true })) do
    if mark[4].hl_group then return mark[4].hl_group end
  end
end

local function spinner_on(row)
  local ns = vim.api.nvim_get_namespaces().bindery_spinner
  return #vim.api.nvim_buf_get_extmarks(0, ns, { row - 1, 0 }, { row - 1, -1 }, {}) > 0
end

local function fill(first, last)
  T.goto_line('First name:')
  T.input('cc')
  T.type(first)
  T.input('<Esc>')
  T.goto_line('Last name:')
  T.input('cc')
  T.type(last)
  T.input('<Esc>')
end

T.test('login: a disabled button is dimmed and does nothing', function()
  vim.cmd('BinderyOpen login')
  T.expect_buffer([=[
    == login ==
    First name: 
    Last name: 
    Can log in: false
    Logging in: false
    Logged-in user:
    Error:

    [ Login ]]=])
  T.eq('BinderyButtonDisabled', group_at(T.row('[ Login ]')), 'button highlight')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.expect_message('Login is disabled')
  T.eq(false, T.request('session/state', { session = T.form().session }).state['login.running'], 'running')
end)

T.test('login: <CR> on the button runs the async command with a spinner, then shows the user', function()
  vim.cmd('BinderyOpen login')
  fill('Ada', 'Lovelace')
  T.eq('BinderyButton', group_at(T.row('[ Login ]')), 'button highlight')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.expect_buffer([=[
    == login ==
    First name: Ada
    Last name: Lovelace
    Can log in: false
    Logging in: true
    Logged-in user:
    Error:

    [ Login ] running…]=])
  T.truthy(spinner_on(T.row('[ Login ]')), 'a spinner on the button')
  T.eq('BinderyRunning', group_at(T.row('[ Login ]')), 'button highlight')
  -- Pressing it again while it runs does not invoke twice.
  T.input('<CR>')
  T.expect_message('Login is running')
  T.eq({ now = 1500 }, advance(1500), 'clock')
  T.expect_buffer([=[
    == login ==
    First name: Ada
    Last name: Lovelace
    Can log in: true
    Logging in: false
    Logged-in user: User(firstName: "Ada", lastName: "Lovelace", authToken: "123adasdsadasdasdasdd")
    Error:

    [ Login ]
      → firstName: Ada, lastName: Lovelace, authToken: 123adasdsadasdasdasdd]=])
  T.wait(function() return not spinner_on(T.row('[ Login ]')) end, 'the spinner to stop')
end)

T.test('login: a failing command shows its error under the button', function()
  vim.cmd('BinderyOpen login')
  fill('Mallory', 'Smith')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('running…', 1, true) end, 'running')
  advance(1500)
  T.expect_buffer([=[
    == login ==
    First name: Mallory
    Last name: Smith
    Can log in: true
    Logging in: false
    Logged-in user:
    Error: The user API rejected Mallory Smith

    [ Login ]
      ✗ Command "login" of login failed: The user API rejected Mallory Smith]=])
end)

T.test('login: <C-c> on a running login cancels it', function()
  vim.cmd('BinderyOpen login')
  fill('Ada', 'Lovelace')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('running…', 1, true) end, 'running')
  -- As typed: in a terminal nvim_input would do, but headless Neovim turns
  -- an nvim_input <C-c> into an interrupt while timers run (the spinner).
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-c>', true, false, true), 'm', false)
  T.expect_buffer([=[
    == login ==
    First name: Ada
    Last name: Lovelace
    Can log in: true
    Logging in: false
    Logged-in user:
    Error:

    [ Login ]
      ✗ Request cancelled: by the client]=])
  -- And with :BinderyCancel, from another line.
  T.input('<CR>')
  T.wait(function() return T.text():find('running…', 1, true) end, 'running again')
  T.goto_line('First name:')
  vim.cmd('BinderyCancel')
  T.wait(function() return T.text():find('Request cancelled', 1, true) end, 'the cancellation')
  T.eq(false, T.request('session/state', { session = T.form().session }).state['login.running'], 'running')
end)

T.test('login: writes still waiting for their pause go out before the command', function()
  vim.g.bindery_debounce_ms = 60000
  local ok, err = pcall(function()
    vim.cmd('BinderyOpen login')
    T.goto_line('First name:')
    T.input('A')
    T.type('Ada')
    T.input('<Esc>j')
    T.input('A')
    T.type('L')
    -- Still typing (Insert mode, the pause not over): press the button now.
    vim.cmd('stopinsert')
    T.goto_line('[ Login ]')
    T.input('<CR>')
    T.wait(function() return T.text():find('running…', 1, true) end, 'running')
    advance(1500)
    T.wait(function() return T.text():find('lastName: L,', 1, true) end, 'the user with the last keystroke')
  end)
  vim.g.bindery_debounce_ms = nil
  if not ok then error(err, 0) end
end)
