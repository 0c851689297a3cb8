-- Test helpers: tests run as coroutines that yield to the editor, so typed
-- keys (nvim_input), timers and daemon messages are handled by the real
-- main loop between steps. Waits are on conditions, with generous timeouts.
local T = { tests = {}, messages = {} }

local api = vim.api
local uv = require('bindery.compat').uv

function T.test(name, fn)
  T.tests[#T.tests + 1] = { name = name, fn = fn }
end

-- Lets the editor run for about ms milliseconds.
function T.yield(ms)
  coroutine.yield(ms or 10)
end

function T.wait(cond, what, timeout)
  local deadline = uv.now() + (timeout or 15000)
  while true do
    local ok, value = pcall(cond)
    if ok and value then return value end
    if uv.now() > deadline then
      error('timed out waiting for ' .. (what or 'a condition') .. (ok and '' or (': ' .. tostring(value))), 2)
    end
    T.yield(15)
  end
end

function T.text(buf)
  return table.concat(api.nvim_buf_get_lines(buf or 0, 0, -1, false), '\n')
end

local function dedent(s)
  local lines = vim.split(s, '\n', { plain = true })
  if lines[1] == '' then table.remove(lines, 1) end
  if lines[#lines]:match('^%s*$') then table.remove(lines) end
  local indent = math.huge
  for _, line in ipairs(lines) do
    if line:match('%S') then indent = math.min(indent, #line:match('^ *')) end
  end
  for i, line in ipairs(lines) do lines[i] = line:sub(indent + 1) end
  return table.concat(lines, '\n')
end
T.dedent = dedent

-- Waits until the whole text of buf is `expected` (indentation of the
-- literal removed); fails showing both.
function T.expect_buffer(expected, buf, timeout)
  expected = dedent(expected)
  buf = buf or api.nvim_get_current_buf()
  local ok = pcall(T.wait, function() return T.text(buf) == expected end, 'the buffer', timeout or 10000)
  if not ok then
    error(('buffer %d differs.\n--- expected\n%s\n--- actual\n%s\n---'):format(buf, expected, T.text(buf)), 2)
  end
end

function T.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

function T.truthy(value, what)
  if not value then error((what or 'condition') .. ' is false', 2) end
  return value
end

-- A key mapped in every mode to note that the keys before it were handled:
-- sent after the keys of a step, it says when the editor has taken them.
local drained = 0
vim.keymap.set({ 'n', 'i', 'v', 'o', 'c' }, '<F35>', function() drained = drained + 1 end)

local function drain()
  local before = drained
  api.nvim_input('<F35>')
  T.wait(function() return drained > before end, 'the keys to be handled')
  T.yield(20)
end

-- Keys as a person types them (nvim_input, handled by the main loop).
function T.input(keys)
  api.nvim_input(keys)
  drain()
end

-- Text typed one character at a time, as Insert-mode keystrokes.
function T.type(text)
  for char in text:gmatch('[%z\1-\127\194-\244][\128-\191]*') do
    api.nvim_input(char == '<' and '<lt>' or char)
    T.yield(5)
  end
  drain()
end

function T.cursor(row, col)
  api.nvim_win_set_cursor(0, { row, col or 0 })
end

-- The row (1-based) of the first line starting with prefix.
function T.row(prefix, buf)
  for i, line in ipairs(api.nvim_buf_get_lines(buf or 0, 0, -1, false)) do
    if vim.startswith(line, prefix) then return i end
  end
  error('no line starting with ' .. vim.inspect(prefix), 2)
end

function T.goto_line(prefix)
  T.cursor(T.row(prefix), 0)
end

function T.expect_message(pattern)
  return T.wait(function()
    for _, message in ipairs(T.messages) do
      if message:find(pattern) then return message end
    end
  end, 'a message matching ' .. vim.inspect(pattern), 5000)
end

function T.mode()
  return api.nvim_get_mode().mode
end

-- Sends a request through the plugin's own connection.
function T.request(method, params)
  local result, err = require('bindery').request(method, params, 15000)
  if err then error(method .. ' failed: ' .. err.message, 2) end
  return result
end

function T.form(buf)
  return require('bindery').form(buf or 0)
end

-- Back to a blank editor and a fresh deterministic daemon between tests.
function T.reset()
  if T.mode():sub(1, 1) ~= 'n' then vim.cmd('stopinsert') end
  api.nvim_input('<Esc>')
  local daemon = require('bindery.daemon')
  for _, buf in ipairs(vim.tbl_keys(daemon.buffers)) do
    if api.nvim_buf_is_valid(buf) then api.nvim_buf_delete(buf, { force = true }) end
  end
  vim.cmd('silent! only')
  vim.cmd('enew!')
  daemon.stop()
  vim.g.bindery_args = { '--deterministic' }
  vim.g.bindery_cmd = nil
  vim.g.bindery_debounce_ms = nil
  vim.g.bindery_reconnect_timeout_ms = nil
  vim.g.bindery_trace = nil
  vim.ui.select = T.original_select
  vim.ui.input = T.original_input
  T.messages = {}
end

T.original_select = vim.ui.select
T.original_input = vim.ui.input

-- appd, the daemon of Examples/AppViewModels: $APPD, else this repository's build.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
T.appd = (os.getenv('APPD') or '') ~= '' and os.getenv('APPD') or (root .. '/.build/debug/appd')
vim.notify = function(message) T.messages[#T.messages + 1] = message end

return T
