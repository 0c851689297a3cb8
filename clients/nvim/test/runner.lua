-- Runs test/spec/*_spec.lua inside this (headless) Neovim, one test after
-- another, each in a coroutine resumed by timers so the editor keeps running.
-- Prints one line per test, then "N passed, N failed"; exits non-zero on any
-- failure. BINDERY_TEST_FILTER (a Lua pattern) selects tests by name.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = dir .. '/?.lua;' .. package.path
local T = require('helpers')
local uv = require('bindery.compat').uv

vim.o.showmode = false
vim.o.shortmess = vim.o.shortmess .. 'FW'
vim.g.bindery_args = { '--deterministic' }

for _, file in ipairs(vim.fn.sort(vim.fn.glob(dir .. '/spec/*_spec.lua', false, true))) do
  local ok, err = pcall(dofile, file)
  if not ok then T.test('load ' .. vim.fn.fnamemodify(file, ':t'), function() error(err, 0) end) end
end

local filter = os.getenv('BINDERY_TEST_FILTER')
local tests = {}
for _, test in ipairs(T.tests) do
  if not filter or test.name:find(filter) then tests[#tests + 1] = test end
end

local out = io.stdout
local passed, failed, index = 0, 0, 0
local started = uv.now()

local function finish()
  pcall(require('bindery.daemon').stop)
  local summary = ('%d passed, %d failed'):format(passed, failed)
  out:write(('(%.1f s)\n'):format((uv.now() - started) / 1000))
  -- test/run prints the summary last, after anything Neovim writes on exit.
  local result_file = os.getenv('BINDERY_TEST_RESULT')
  if result_file then
    local f = io.open(result_file, 'w')
    f:write(summary .. '\n')
    f:close()
  else
    out:write(summary .. '\n')
  end
  out:flush()
  vim.cmd(failed > 0 and 'cquit' or 'qall!')
end

local run_next

local function report(test, ok, err, ms)
  if ok then
    passed = passed + 1
    out:write(('ok %d - %s (%d ms)\n'):format(index, test.name, ms))
  else
    failed = failed + 1
    out:write(('not ok %d - %s (%d ms)\n'):format(index, test.name, ms))
    out:write('  ' .. tostring(err):gsub('\n', '\n  ') .. '\n')
    if #T.messages > 0 then out:write('  messages: ' .. table.concat(T.messages, ' | ') .. '\n') end
  end
  out:flush()
  local reset_ok, reset_err = pcall(T.reset)
  if not reset_ok then out:write('  reset failed: ' .. tostring(reset_err) .. '\n') end
  vim.defer_fn(run_next, 10)
end

function run_next()
  index = index + 1
  local test = tests[index]
  if not test then return finish() end
  local co = coroutine.create(function()
    local ok, err = xpcall(test.fn, debug.traceback)
    if not ok then error(err, 0) end
  end)
  local t0 = uv.now()
  local function step()
    local ok, delay = coroutine.resume(co)
    if not ok then return report(test, false, delay, uv.now() - t0) end
    if coroutine.status(co) == 'dead' then return report(test, true, nil, uv.now() - t0) end
    vim.defer_fn(step, delay or 10)
  end
  step()
end

vim.schedule(run_next)
