local T = require('helpers')

local daemon = require('bindery.daemon')
local uv = require('bindery.compat').uv

T.test('daemon: killed, the forms say so; :BinderyOpen starts a new one', function()
  vim.cmd('BinderyOpen email')
  local email = vim.api.nvim_get_current_buf()
  vim.cmd('split')
  vim.cmd('BinderyOpen login')
  local login = vim.api.nvim_get_current_buf()
  local old = daemon.conn
  uv.kill(old.pid, 'sigkill')
  T.expect_buffer([[
    == email ==
    !! binderyd was killed (signal 9); :BinderyOpen starts a new one
    Email: 
    Valid: false
    Validation message: Email is invalid]], email)
  T.wait(function() return T.text(login):find('!! binderyd was killed', 1, true) end, 'the login form to say so')
  T.eq(false, vim.bo[email].modifiable, 'modifiable')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.expect_message('binderyd was killed')
  T.eq(nil, daemon.conn, 'connection')
  vim.cmd('BinderyOpen email')
  T.truthy(daemon.conn and daemon.conn.pid ~= old.pid, 'a new daemon')
  T.truthy(vim.api.nvim_get_current_buf() ~= email, 'a new form')
  T.goto_line('Email:')
  T.input('A')
  T.type('a@b.co')
  T.input('<Esc>')
  T.expect_buffer([[
    == email ==
    Email: a@b.co
    Valid: true
    Validation message: Email is valid]])
end)

T.test("daemon: stderr goes to :BinderyLog, never into a form", function()
  local cmd = { 'sh', '-c', 'echo hello from stderr >&2; exec "$0" "$@"', vim.env.BINDERYD, '--deterministic' }
  vim.g.bindery_cmd = cmd
  vim.cmd('BinderyOpen email')
  local form = vim.api.nvim_get_current_buf()
  T.wait(function()
    return vim.tbl_contains(require('bindery.log').lines, 'hello from stderr')
  end, 'the stderr line in the log')
  vim.cmd('BinderyLog')
  T.eq('bindery://log', vim.fn.bufname(), 'log buffer')
  T.truthy(T.text():find('hello from stderr', 1, true), 'log text')
  T.truthy(not T.text(form):find('hello', 1, true), 'form text clean')
end)

T.test('daemon: :BinderyClose and wiping the buffer close the session', function()
  vim.cmd('BinderyOpen email')
  local first = T.form().session
  vim.cmd('BinderyClose')
  T.eq(nil, daemon.buffers[vim.api.nvim_get_current_buf()], 'form')
  local _, err = require('bindery').request('session/state', { session = first })
  T.eq(-32011, err and err.code, 'session/state of the closed session')
  vim.cmd('BinderyOpen email')
  local buf, second = vim.api.nvim_get_current_buf(), T.form().session
  vim.cmd('bwipeout! ' .. buf)
  _, err = require('bindery').request('session/state', { session = second })
  T.eq(-32011, err and err.code, 'session/state of the wiped session')
  vim.cmd('BinderyOpen nosuchtype')
  T.expect_message('Unknown view model type "nosuchtype"')
end)

T.test('daemon: initialize, then shutdown and exit when Neovim quits', function()
  local record = vim.fn.tempname()
  local plugin = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
  local done, code = false, nil
  vim.fn.jobstart({
    vim.v.progpath, '--headless', '-u', 'NONE', '-i', 'NONE', '-n',
    '--cmd', 'set rtp^=' .. plugin, '-c', 'runtime plugin/bindery.lua',
    '-c', "let g:bindery_args = ['--record', '" .. record .. "']",
    '-c', 'BinderyOpen email', '-c', 'qall!',
  }, { on_exit = function(_, c) done, code = true, c end })
  T.wait(function() return done end, 'the child Neovim to quit', 20000)
  T.eq(0, code, 'exit code')
  local methods, init
  T.wait(function()
    methods = {}
    for _, line in ipairs(vim.fn.readfile(record)) do
      local entry = vim.json.decode(line)
      if entry['in'] then
        methods[#methods + 1] = entry['in'].method
        if entry['in'].method == 'initialize' then init = entry['in'].params end
      end
    end
    return methods[#methods] == 'exit'
  end, 'the record to end with exit')
  T.eq({ 'initialize', 'initialized', 'session/open', 'shutdown', 'exit' }, methods, 'methods sent')
  T.eq({ clientInfo = { name = 'bindery.nvim' }, capabilities = { splices = true, display = true } }, init, 'initialize params')
  os.remove(record)
end)
