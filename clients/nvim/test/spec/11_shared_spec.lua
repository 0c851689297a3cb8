local T = require('helpers')

local uv = require('bindery.compat').uv
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h:h')

-- The Python README's snippet that fills a keyed form on the shared daemon, as written there.
local function readme_snippet()
  local text = table.concat(vim.fn.readfile(root .. '/clients/python/README.md'), '\n')
  local start = text:find('```python\nfrom bindery import Client, WaitTimeout', 1, true)
  assert(start, 'the snippet in clients/python/README.md')
  local body_start = text:find('\n', start, true) + 1
  local stop = text:find('\n```', body_start, true)
  return text:sub(body_start, stop)
end

local function stop_shared_daemon(runtime)
  -- The forms go first: a form whose shared daemon stops would reconnect.
  for _, buf in ipairs(vim.tbl_keys(require('bindery.daemon').buffers)) do
    if vim.api.nvim_buf_is_valid(buf) then vim.api.nvim_buf_delete(buf, { force = true }) end
  end
  local found = vim.fn.systemlist({ 'pgrep', '-f', '--', '--listen ' .. runtime .. '/bindery/daemon.sock' })
  for _, pid in ipairs(found) do
    if tonumber(pid) then uv.kill(tonumber(pid), 'sigterm') end
  end
end

T.test('shared: a keyed form through --remote auto updates live while a Python script fills it', function()
  local runtime = vim.fn.tempname()
  vim.fn.mkdir(runtime, 'p', tonumber('700', 8))
  vim.env.XDG_RUNTIME_DIR = runtime
  -- The only setting changed: the daemon is the forwarder to the user's shared daemon.
  vim.g.bindery_cmd = { vim.env.BINDERYD, '--remote', 'auto' }
  local ok, err = pcall(function()
    vim.cmd('BinderyOpen survey form-1')
    local form = vim.api.nvim_get_current_buf()
    local script = vim.fn.tempname() .. '.py'
    vim.fn.writefile(vim.split(readme_snippet(), '\n'), script)
    local output, done = {}, false
    vim.fn.jobstart({ 'python3', script }, {
      env = { PYTHONPATH = root .. '/clients/python', XDG_RUNTIME_DIR = runtime },
      stdout_buffered = true,
      on_stdout = function(_, lines) output = lines end,
      on_exit = function() done = true end,
    })
    -- The script's writes appear in the form, with what follows from them.
    T.wait(function() return T.text(form):find('Name: Ada Lovelace', 1, true) end, 'the script\'s name in the form')
    T.wait(function() return T.text(form):find('Experience: 12.0 yrs', 1, true) end, 'the derived experience')
    -- What is typed in the form reaches the script's state.
    T.goto_line('Company:')
    T.input('A')
    T.type('Analytical Engines')
    T.input('<Esc>')
    T.wait(function() return done end, 'the script to end', 20000)
    local printed = table.concat(output, '\n')
    T.truthy(printed:find('typed in the editor: Analytical Engines', 1, true), 'the script saw it: ' .. printed)
  end)
  vim.env.XDG_RUNTIME_DIR = nil
  stop_shared_daemon(runtime)
  if not ok then error(err, 0) end
end)

T.test('shared: a shared daemon killed under a form is said as killed, with its log', function()
  local runtime = vim.fn.tempname()
  vim.fn.mkdir(runtime, 'p', tonumber('700', 8))
  vim.env.XDG_RUNTIME_DIR = runtime
  vim.g.bindery_cmd = { vim.env.BINDERYD, '--remote', 'auto' }
  local socket = runtime .. '/bindery/daemon.sock'
  local ok, err = pcall(function()
    vim.cmd('BinderyOpen email signup')
    local form = vim.api.nvim_get_current_buf()
    T.wait(function() return T.text(form):find('Email:', 1, true) end, 'the form')
    local pids = vim.fn.systemlist({ 'pgrep', '-f', '--', '--listen ' .. socket })
    T.truthy(#pids == 1 and tonumber(pids[1]), 'one shared daemon: ' .. vim.inspect(pids))
    uv.kill(tonumber(pids[1]), 'sigkill')
    local said = ('!! binderyd exited (code 137): the daemon on %s (pid %s) was killed by signal 9 while this '
      .. 'client was connected; its log: %s.log'):format(socket, pids[1], socket)
    -- The !! line is broken between words to fit the window: compare with its spaces and breaks as one.
    local flat = function(text) return (text:gsub('%s+', ' ')) end
    T.wait(function() return flat(T.text(form)):find(flat(said), 1, true) end,
      'the form to say how the daemon ended: ' .. said)
  end)
  vim.env.XDG_RUNTIME_DIR = nil
  stop_shared_daemon(runtime)
  if not ok then error(err, 0) end
end)

-- Whether a file under dir holds text (the daemon writes a keyed session 250 ms after it changes).
local function saved(dir, text)
  for _, file in ipairs(vim.fn.globpath(dir, '**', false, true)) do
    local f = vim.fn.isdirectory(file) == 0 and io.open(file, 'rb')
    local content = f and f:read('*a') or ''
    if f then f:close() end
    if content:find(text, 1, true) then
      return true
    end
  end
  return false
end

T.test('shared: a killed shared daemon is reconnected; the keyed form reopens restored and keeps working', function()
  local runtime, state = vim.fn.tempname(), vim.fn.tempname()
  vim.fn.mkdir(runtime, 'p', tonumber('700', 8))
  vim.fn.mkdir(state, 'p', tonumber('700', 8))
  vim.env.XDG_RUNTIME_DIR, vim.env.XDG_STATE_HOME = runtime, state
  vim.g.bindery_cmd = { vim.env.BINDERYD, '--remote', 'auto' }
  local socket = runtime .. '/bindery/daemon.sock'
  local ok, err = pcall(function()
    vim.cmd('BinderyOpen email signup')
    local buf = vim.api.nvim_get_current_buf()
    local form = T.form()
    vim.cmd('vertical BinderyOpen email') -- no key: cannot be found again
    local unkeyed = vim.api.nvim_get_current_buf()
    vim.cmd('wincmd p')
    T.goto_line('Email:')
    T.input('A')
    T.type('ada@example.com')
    T.input('<Esc>')
    T.wait(function() return saved(state .. '/bindery/sessions', 'ada@example.com') end, 'the session saved', 10000)
    local old = form.conn
    local pids = vim.fn.systemlist({ 'pgrep', '-f', '--', '--listen ' .. socket })
    T.truthy(#pids == 1 and tonumber(pids[1]), 'one shared daemon: ' .. vim.inspect(pids))
    uv.kill(tonumber(pids[1]), 'sigkill')
    local flat = function(text) return (text:gsub('%s+', ' ')) end
    T.wait(function() return flat(T.text(buf)):find('was killed by signal 9 while this client was connected; its log: '
      .. socket .. '.log; reconnecting in 1 s…', 1, true) end, 'the form to say it reconnects')
    T.wait(function() return flat(T.text(unkeyed)):find("this form's session is closed (it had no key to reopen it by)", 1, true) end,
      'the unkeyed form closed')
    -- Reconnected: the same buffer, the value restored by the new daemon, no status line.
    T.expect_buffer([[
      == email (signup) ==
      Email: ada@example.com
      Valid: true
      Validation message: Email is valid]], buf, 20000)
    T.truthy(form.conn ~= old and T.form(buf) == form, 'the same form, on a new connection')
    T.expect_message('reconnected: email %(signup%) reopened, its values restored')
    -- Typing reaches the new daemon's session.
    T.goto_line('Email:')
    T.input('A')
    T.type('.uk')
    T.input('<Esc>')
    T.wait(function() return T.request('session/state', { session = form.session }).state.email == 'ada@example.com.uk' end,
      'the edit in the new daemon')
    local now = vim.fn.systemlist({ 'pgrep', '-f', '--', '--listen ' .. socket })
    T.truthy(#now == 1 and now[1] ~= pids[1], 'a new shared daemon: ' .. vim.inspect(now))
  end)
  stop_shared_daemon(runtime)
  vim.env.XDG_RUNTIME_DIR, vim.env.XDG_STATE_HOME = nil, nil
  if not ok then error(err, 0) end
end)

-- A daemon that accepts and never answers: a forwarder to it waits for initialize for ever.
local SILENT = table.concat({
  'import socket, sys',
  's = socket.socket(socket.AF_UNIX)',
  's.bind(sys.argv[1])',
  's.listen(8)',
  'held = []',
  'while True:',
  '    held.append(s.accept()[0])',
}, '\n')

T.test('shared: while a reconnect attempt waits for an answer the editor works; unanswered, it is stopped and the next scheduled', function()
  local runtime = vim.fn.tempname()
  vim.fn.mkdir(runtime, 'p', tonumber('700', 8))
  vim.env.XDG_RUNTIME_DIR = runtime
  vim.g.bindery_cmd = { vim.env.BINDERYD, '--remote', 'auto' }
  vim.g.bindery_reconnect_timeout_ms = 2000
  local reconnect = require('bindery.reconnect')
  local silent = runtime .. '/silent.sock'
  local listener
  local ok, err = pcall(function()
    vim.cmd('BinderyOpen email signup')
    local buf = vim.api.nvim_get_current_buf()
    listener = vim.fn.jobstart({ 'python3', '-c', SILENT, silent })
    T.wait(function() return (uv.fs_stat(silent) or {}).type == 'socket' end, 'the silent listener')
    -- The next attempts go to the daemon that never answers; this one is killed.
    vim.g.bindery_cmd = { vim.env.BINDERYD, '--remote', silent }
    local pids = vim.fn.systemlist({ 'pgrep', '-f', '--', '--listen ' .. runtime .. '/bindery/daemon.sock' })
    T.truthy(#pids == 1 and tonumber(pids[1]), 'one shared daemon: ' .. vim.inspect(pids))
    uv.kill(tonumber(pids[1]), 'sigkill')
    local flat = function(text) return (text:gsub('%s+', ' ')) end
    T.wait(function() return reconnect.current and flat(T.text(buf)):find('; reconnecting…', 1, true) end,
      'an attempt under way, said in the form')
    local attempt = reconnect.current
    local forwarder = T.truthy(attempt.conn, 'the attempt\'s forwarder')
    -- Keys, as a person types them while it waits: move in the form, open a scratch buffer, type there.
    T.input('G:new<CR>ityped while reconnecting<Esc>')
    T.eq('typed while reconnecting', vim.api.nvim_get_current_line(), 'the scratch buffer\'s text')
    T.truthy(vim.api.nvim_get_current_buf() ~= buf, 'a new buffer')
    T.eq(vim.api.nvim_buf_line_count(buf), vim.api.nvim_win_get_cursor(vim.fn.bufwinid(buf))[1], 'the form\'s cursor at its end')
    T.truthy(reconnect.current == attempt and not forwarder.closed, 'the keys handled while the attempt still waited')
    -- Its limit out: the forwarder stopped, the next attempt scheduled, and the form says both.
    T.wait(function() return flat(T.text(buf)):find('; the last attempt got no answer within 2 s and was stopped; '
      .. 'reconnecting in 2 s…', 1, true) end, 'the form to say the attempt was stopped', 10000)
    T.wait(function() return forwarder.closed end, 'the forwarder to end')
    T.truthy(reconnect.current == nil and reconnect.timer, 'no attempt under way, the next one scheduled')
  end)
  if listener then vim.fn.jobstop(listener) end
  vim.g.bindery_reconnect_timeout_ms = nil
  stop_shared_daemon(runtime)
  vim.env.XDG_RUNTIME_DIR = nil
  if not ok then error(err, 0) end
end)
