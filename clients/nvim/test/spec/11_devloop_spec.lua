-- bindery-dev as the plugin's daemon (test/run sets BINDERY_DEV and
-- BINDERY_DEV_PACKAGE: the package Tests/DevLoop/devloop.py writes, built).
local T = require('helpers')

local dev, package = os.getenv('BINDERY_DEV'), os.getenv('BINDERY_DEV_PACKAGE')
assert(dev and package, 'BINDERY_DEV and BINDERY_DEV_PACKAGE are unset: run this suite through test/run')

local function read(path)
  local file = assert(io.open(path, 'r'))
  local text = file:read('*a')
  file:close()
  return text
end

-- The form's text with its status lines joined (a long one is broken between
-- words, the next lines indented by three spaces).
local function joined()
  return (T.text():gsub('\n   ', ' '))
end

-- Saves as an editor does: a temporary written whole, renamed over the file.
local function save(path, text)
  local temporary = path .. '.tmp~'
  local file = assert(io.open(temporary, 'w'))
  file:write(text)
  file:close()
  assert(os.rename(temporary, path))
end

-- What bindery-dev logged (its builds and their times), for a failure's report.
local function log_tail()
  local lines = require('bindery.log').lines
  return '--- bindery-dev\'s log:\n' .. table.concat(vim.list_slice(lines, math.max(1, #lines - 40)), '\n')
end

T.test('bindery-dev: a saved edit adds a line and keeps the typed value; a syntax error goes to quickfix', function()
  local model = package .. '/Sources/greeter/GreetingViewModel.swift'
  local original = read(model)
  local ok, err = pcall(function()
    vim.g.bindery_cmd = { dev, '--package-path', package, '--product', 'greeter' }
    vim.g.bindery_args = {}
    vim.cmd('BinderyOpen greeting')
    T.expect_buffer([[
      == greeting ==
      Name: 
      Greeting: Hello!]], nil, 120000)
    T.goto_line('Name:')
    T.input('A')
    T.type('Ada')
    T.input('<Esc>')
    T.expect_buffer([[
      == greeting ==
      Name: Ada
      Greeting: Hello, Ada!]])

    -- An edit that adds an output: the form shows its line, Name keeps "Ada" and the cursor.
    local added = original
      :gsub('(var greeting[^\n]*\n)', '%1    var shout: String { greeting.uppercased() }\n')
      :gsub('(Output%("greeting", \\%.greeting%))', '%1\n            Output("shout", \\.shout)')
    save(model, added)
    T.expect_buffer([[
      == greeting ==
      Name: Ada
      Greeting: Hello, Ada!
      Shout: HELLO, ADA!]], nil, 60000)
    T.eq(2, vim.api.nvim_win_get_cursor(0)[1], 'cursor row (still on Name)')

    -- A syntax error: the quickfix list has it, the form says so; the form still works.
    local lines = vim.split(added, '\n', { plain = true })
    local broken_row
    for i, line in ipairs(lines) do
      if line:find('var shout', 1, true) then
        broken_row = i
        lines[i] = '    var shout: String { greeting.uppercased( }'
      end
    end
    save(model, table.concat(lines, '\n'))
    T.wait(function() return vim.fn.getqflist({ title = 0 }).title == 'bindery-dev: build failed' end,
      'the quickfix list', 60000)
    local first = vim.fn.getqflist()[1]
    T.eq(model, vim.fn.fnamemodify(vim.fn.bufname(first.bufnr), ':p'), 'quickfix file')
    T.eq(broken_row, first.lnum, 'quickfix line')
    T.eq('E', first.type, 'quickfix type')
    T.wait(function() return joined():find('!! build failed: GreetingViewModel.swift:' .. broken_row .. ': ', 1, true) end,
      'the form to say the build failed')

    -- Fixed: the line and the quickfix entries go.
    save(model, original)
    T.expect_buffer([[
      == greeting ==
      Name: Ada
      Greeting: Hello, Ada!]], nil, 60000)
    T.eq(0, #vim.fn.getqflist(), 'quickfix entries')

    -- A daemon that died while serving is shown the same way (as bindery-dev reports it), and
    -- cleared by the next reload.
    local devloop = require('bindery.devloop')
    local conn = require('bindery.daemon').conn
    devloop.notification(conn, 'daemon/exited', { code = 134, message = 'the daemon exited with code 134: Fatal error: boom' })
    T.truthy(joined():find('!! the daemon exited; save a source to restart it: the daemon exited with code 134: Fatal error: boom', 1, true),
      'the form says the daemon exited')
    T.eq('the daemon exited with code 134: Fatal error: boom', vim.fn.getqflist()[1].text, 'quickfix entry')
    devloop.notification(conn, 'daemon/reloaded', { buildMs = 1, restartMs = 1, migrateMs = 0, types = {} })
    T.expect_buffer([[
      == greeting ==
      Name: Ada
      Greeting: Hello, Ada!]])
  end)
  save(model, original)
  if not ok then error(tostring(err) .. '\n' .. log_tail(), 0) end
end)

-- The line (1-based) of the first line matching a Lua pattern.
local function find(pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if line:find(pattern) then return i end
  end
  error('no line matches ' .. vim.inspect(pattern), 2)
end

T.test('bindery-dev: a form with children keeps its tabs and rows across a saved edit', function()
  local tabbed = package .. '/Sources/greeter/TabbedAppViewModel.swift'
  local original = read(tabbed)
  local ok, err = pcall(function()
    vim.g.bindery_cmd = { dev, '--package-path', package, '--product', 'greeter' }
    vim.g.bindery_args = {}
    vim.cmd('BinderyOpen tabbedApp')
    T.wait(function() return T.text():find('Summary: Cups: 0', 1, true) end, 'the form and its row', 120000)
    -- A name typed into the profile tab (a child session), a row added on the counters tab.
    T.cursor(find('^  Name:'), 0)
    T.input('A')
    T.type('Ada')
    T.input('<Esc>')
    T.wait(function() return T.text():find('  Name: Ada\n  Can save: true', 1, true) end, 'the profile tab\'s canSave')
    T.cursor(find('^  %[ Add %]'), 3)
    T.input('<CR>')
    T.wait(function() return T.text():find('Summary: Counter 2: 0', 1, true) end, 'the added row')
    T.cursor(find('Summary: Cups: 0'), 4)
    T.input('<CR>') -- [ Increment ] on the first row
    T.wait(function() return T.text():find('Summary: Cups: 1', 1, true) end, 'the first row incremented')

    -- A saved edit of the rows' summary: the tabs keep what was typed, the first row is redrawn by
    -- the new model (its count, an output, starts again from 0), the added row goes.
    save(tabbed, (original:gsub('"\\%(title%): \\%(count%)"', '"\\(title) = \\(count)"')))
    T.wait(function() return T.text():find('Summary: Cups = 0', 1, true) end, 'the reloaded row', 60000)
    T.wait(function() return not T.text():find('Counter 2', 1, true) end, 'the added row gone')
    T.truthy(T.text():find('  Name: Ada\n  Can save: true', 1, true), 'the name kept')
    T.truthy(not T.text():find('!!', 1, true), 'no error shown')

    -- The form still works: the tab adds a row, the row counts.
    T.cursor(find('^  %[ Add %]'), 3)
    T.input('<CR>')
    T.wait(function() return T.text():find('Summary: Counter 2 = 0', 1, true) end, 'a row added after the reload')
  end)
  save(tabbed, original)
  if not ok then
    error(tostring(err) .. '\n--- the form:\n' .. T.text() .. '\n' .. log_tail(), 0)
  end
end)
