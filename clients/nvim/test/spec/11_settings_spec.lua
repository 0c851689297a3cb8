local T = require('helpers')

local daemon = require('bindery.daemon')
local discovery = require('bindery.discovery')
local log = require('bindery.log')
local settings = require('bindery.settings')

local CMD = "a program (a string, like '~/.local/bin/binderyd') or a list: the program, then its arguments"
local ARGS = "a list of strings, like ['--deterministic'], or one string of arguments separated by spaces"
local DEBOUNCE = 'a number of milliseconds, like 150'
local TRACE = 'v:true or v:false (or 1 or 0)'

-- Runs fn(home) with $HOME a new directory holding an executable `binderyd`,
-- a file that is not executable, `plain`, and `.local/bin/bindery-installed`;
-- $HOME is put back after.
local function with_home(fn)
  local home = vim.fn.tempname()
  vim.fn.mkdir(home, 'p')
  vim.fn.writefile({ '#!/bin/sh', 'exit 0' }, home .. '/binderyd')
  vim.fn.setfperm(home .. '/binderyd', 'rwxr-xr-x')
  vim.fn.writefile({ 'not a program' }, home .. '/plain')
  vim.fn.mkdir(home .. '/.local/bin', 'p')
  vim.fn.writefile({ '#!/bin/sh', 'exit 0' }, home .. '/.local/bin/bindery-installed')
  vim.fn.setfperm(home .. '/.local/bin/bindery-installed', 'rwxr-xr-x')
  local saved = vim.env.HOME
  vim.env.HOME = home
  local ok, err = pcall(fn, home)
  vim.env.HOME = saved
  vim.fn.delete(home, 'rf')
  if not ok then error(err, 0) end
end

-- The messages said since `since` (an index into T.messages) that contain text.
local function said(text, since)
  local found = {}
  for i = (since or 0) + 1, #T.messages do
    if T.messages[i]:find(text, 1, true) then found[#found + 1] = T.messages[i] end
  end
  return found
end

T.test('settings: g:bindery_cmd is a program (a string) or a list of it and its arguments', function()
  with_home(function(home)
    local program, sh, env = home .. '/binderyd', vim.fn.exepath('sh'), vim.env.BINDERYD
    vim.g.bindery_args = {}
    for _, case in ipairs({
      { program, { program } },
      { '~/binderyd', { program } },
      { 'sh', { sh } }, -- a name: looked up on $PATH
      -- then in ~/.local/bin, where ./scripts/install puts it (often not on a new user's PATH)
      { { 'bindery-installed', '--remote', 'auto' }, { home .. '/.local/bin/bindery-installed', '--remote', 'auto' } },
      { { program, '--seed', 2 }, { program, '--seed', '2' } },
      { { '~/binderyd', '--state', '~/s' }, { program, '--state', home .. '/s' } },
    }) do
      vim.g.bindery_cmd = case[1]
      T.eq(case[2], discovery.command(), vim.inspect(case[1]))
    end
    -- As Vim script writes them.
    vim.cmd("let g:bindery_cmd = '~/binderyd'")
    T.eq({ program }, discovery.command(), ':let of a string')
    vim.cmd("let g:bindery_cmd = ['~/binderyd', '--seed', 2]")
    T.eq({ program, '--seed', '2' }, discovery.command(), ':let of a list')
    -- Unset or empty: the daemon is found, from $BINDERYD first.
    for _, value in ipairs({ 'v:null', "''", '[]' }) do
      vim.cmd('let g:bindery_cmd = ' .. value)
      T.eq({ env }, discovery.command(), value)
    end
    for _, value in ipairs({ '42', 'v:true', "{'cmd': 'binderyd'}", '{}', '[1]', "['sh', ['-c']]" }) do
      vim.cmd('let g:bindery_cmd = ' .. value)
      T.eq({ nil, 'g:bindery_cmd should be ' .. CMD .. ', not ' .. value }, { discovery.command() }, value)
    end
    for _, case in ipairs({
      { '/nonexistent/binderyd', 'g:bindery_cmd: /nonexistent/binderyd does not exist' },
      { '~/nonexistent', 'g:bindery_cmd: ' .. home .. '/nonexistent does not exist' },
      { home .. '/plain', 'g:bindery_cmd: ' .. home .. '/plain is not executable' },
      { home, 'g:bindery_cmd: ' .. home .. ' is a directory, not a program' },
      { { '/nonexistent/binderyd', '--deterministic' }, 'g:bindery_cmd: /nonexistent/binderyd does not exist' },
      { 'binderyd --deterministic', "g:bindery_cmd: no program 'binderyd --deterministic' on $PATH or in ~/.local/bin;"
        .. " a program with arguments is a list, like ['binderyd', '--deterministic']" },
    }) do
      vim.g.bindery_cmd = case[1]
      T.eq({ nil, case[2] }, { discovery.command() }, vim.inspect(case[1]))
    end
  end)
end)

T.test('settings: g:bindery_args is a list, or one string split at spaces', function()
  with_home(function(home)
    for _, case in ipairs({
      { nil, {} },
      { '', {} },
      { '--deterministic', { '--deterministic' } },
      { ' --deterministic  --seed 3 ', { '--deterministic', '--seed', '3' } },
      { { '--seed', 3 }, { '--seed', '3' } },
      { { '--record', '~/r.jsonl' }, { '--record', home .. '/r.jsonl' } },
    }) do
      vim.g.bindery_args = case[1]
      T.eq(case[2], settings.args(), vim.inspect(case[1]))
    end
    for _, value in ipairs({ '3', 'v:true', "['--seed', v:null]", "{'seed': 3}" }) do
      vim.cmd('let g:bindery_args = ' .. value)
      T.eq({ nil, 'g:bindery_args should be ' .. ARGS .. ', not ' .. value }, { settings.args() }, value)
    end
    -- After the program, in the daemon's command line.
    vim.g.bindery_cmd, vim.g.bindery_args = 'sh', '-c x'
    T.eq({ vim.fn.exepath('sh'), '-c', 'x' }, discovery.command(), 'argv')
  end)
end)

T.test('settings: g:bindery_debounce_ms is a number (or a string of one); g:bindery_trace a boolean or 1/0', function()
  for _, case in ipairs({ { 'v:null', 150 }, { '200', 200 }, { "'200'", 200 }, { "' 75 '", 75 }, { '12.7', 12 }, { '0', 0 } }) do
    vim.cmd('let g:bindery_debounce_ms = ' .. case[1])
    T.eq(case[2], settings.debounce_ms(), case[1])
  end
  for _, value in ipairs({ '-1', "'soon'", 'v:true', '[150]', '1.0e100' }) do
    vim.cmd('let g:bindery_debounce_ms = ' .. value)
    T.eq({ nil, 'g:bindery_debounce_ms should be ' .. DEBOUNCE .. ', not ' .. value },
      { settings.debounce_ms() }, value)
  end
  for _, case in ipairs({
    { 'v:true', true }, { '1', true }, { "'yes'", true }, { "'On'", true },
    { 'v:false', false }, { '0', false }, { "'0'", false }, { "'off'", false }, { 'v:null', false },
  }) do
    vim.cmd('let g:bindery_trace = ' .. case[1])
    T.eq(case[2], settings.trace(), case[1])
  end
  vim.g.bindery_trace = true
  T.eq(true, settings.trace(), 'Lua true')
  for _, value in ipairs({ "'maybe'", '[1]', '{}' }) do
    vim.cmd('let g:bindery_trace = ' .. value)
    T.eq({ nil, 'g:bindery_trace should be ' .. TRACE .. ', not ' .. value }, { settings.trace() }, value)
  end
end)

T.test('settings: g:bindery_reconnect_timeout_ms is a number above 0 (or a string of one)', function()
  for _, case in ipairs({ { 'v:null', 20000 }, { '2000', 2000 }, { "' 500 '", 500 }, { '1.5', 1 } }) do
    vim.cmd('let g:bindery_reconnect_timeout_ms = ' .. case[1])
    T.eq(case[2], settings.reconnect_timeout_ms(), case[1])
  end
  for _, value in ipairs({ '0', '-1', "'soon'", '[20000]' }) do
    vim.cmd('let g:bindery_reconnect_timeout_ms = ' .. value)
    T.eq({ nil, 'g:bindery_reconnect_timeout_ms should be a number of milliseconds above 0, like 20000, not ' .. value },
      { settings.reconnect_timeout_ms() }, value)
  end
end)

T.test('settings: g:bindery_cmd as a string opens a real form; the others as people write them', function()
  vim.cmd('let g:bindery_cmd = ' .. vim.fn.string(vim.env.BINDERYD))
  vim.cmd("let g:bindery_args = '--deterministic --seed 7'")
  vim.cmd("let g:bindery_debounce_ms = '20'")
  vim.cmd('let g:bindery_trace = 1')
  vim.cmd('BinderyOpen email')
  T.truthy(vim.tbl_contains(log.lines, ('[bindery] started %s --deterministic --seed 7 (pid %d)')
    :format(vim.env.BINDERYD, daemon.conn.pid)), 'the command line in the log')
  T.truthy(#vim.tbl_filter(function(line) return line:find('[bindery] --> ', 1, true) end, log.lines) > 0,
    'traced')
  T.goto_line('Email:')
  T.input('A')
  T.type('a@b.co')
  T.expect_buffer([[
    == email ==
    Email: a@b.co
    Valid: true
    Validation message: Email is valid]])
  -- 0 is off, as in Vim (it was true to Lua, and traced).
  vim.cmd('let g:bindery_trace = 0')
  local lines = #log.lines
  T.type('m')
  T.wait(function() return T.request('session/state', { session = T.form().session }).state.email == 'a@b.com' end,
    'the write')
  T.eq(lines, #log.lines, 'log lines after g:bindery_trace = 0')
end)

T.test('settings: :BinderyOpen refuses a bad one, naming it, and starts nothing', function()
  daemon.stop()
  T.wait(function() return daemon.conn == nil end, 'the daemon to stop')
  for _, case in ipairs({
    { 'let g:bindery_cmd = 42', 'g:bindery_cmd should be ' .. CMD .. ', not 42' },
    { "let g:bindery_cmd = '/nonexistent/binderyd'", 'g:bindery_cmd: /nonexistent/binderyd does not exist' },
    { "let g:bindery_args = {'seed': 3}", 'g:bindery_args should be ' .. ARGS .. ", not {'seed': 3}" },
    { "let g:bindery_debounce_ms = 'soon'", 'g:bindery_debounce_ms should be ' .. DEBOUNCE .. ", not 'soon'" },
    { "let g:bindery_trace = 'maybe'", 'g:bindery_trace should be ' .. TRACE .. ", not 'maybe'" },
  }) do
    vim.cmd(case[1])
    local buf = vim.api.nvim_get_current_buf()
    vim.cmd('BinderyOpen email')
    T.eq('Bindery: ' .. case[2], T.messages[#T.messages], case[1])
    T.eq(nil, daemon.conn, 'no daemon after ' .. case[1])
    T.eq(buf, vim.api.nvim_get_current_buf(), 'no form after ' .. case[1])
    vim.g.bindery_cmd, vim.g.bindery_args = nil, { '--deterministic' }
    vim.g.bindery_debounce_ms, vim.g.bindery_trace = nil, nil
  end
end)

T.test('settings: made bad while a form is open, one is said once and its default used', function()
  vim.cmd('BinderyOpen email')
  vim.g.bindery_debounce_ms = 'soon'
  vim.g.bindery_trace = 'maybe'
  local since = #T.messages
  T.goto_line('Email:')
  T.input('A')
  T.type('a@b.co')
  T.eq('i', T.mode(), 'still typing')
  T.expect_buffer([[
    == email ==
    Email: a@b.co
    Valid: true
    Validation message: Email is valid]])
  T.eq({ "Bindery: g:bindery_debounce_ms should be " .. DEBOUNCE .. ", not 'soon'; using 150" },
    said('g:bindery_debounce_ms', since), 'the debounce message')
  T.eq({ "Bindery: g:bindery_trace should be " .. TRACE .. ", not 'maybe'; using false" },
    said('g:bindery_trace', since), 'the trace message')
end)
