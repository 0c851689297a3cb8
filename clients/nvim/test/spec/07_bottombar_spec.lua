local T = require('helpers')

T.test('bottomBar: timer changes render with no request; a key reattaches', function()
  vim.cmd('BinderyOpen bottomBar bar')
  T.expect_buffer([[
    == bottomBar (bar) ==
    Text:]])
  local bar = vim.api.nvim_get_current_buf()
  local session = T.form().session
  -- Advance the virtual clock from another buffer: the bar renders anyway.
  vim.cmd('enew')
  T.eq({ now = 4500 }, T.request('clock/advance', { ms = 4500 }), 'clock')
  T.expect_buffer([[
    == bottomBar (bar) ==
    Text: Random number: 74]], bar)
  -- Same key: the same live session, in the same buffer.
  vim.cmd('BinderyOpen bottomBar bar')
  T.eq(bar, vim.api.nvim_get_current_buf(), 'buffer')
  T.eq(session, T.form().session, 'session')
  -- No key: a new session with its own timer.
  vim.cmd('BinderyOpen bottomBar')
  T.truthy(T.form().session ~= session, 'a new session')
  T.expect_buffer([[
    == bottomBar ==
    Text:]])
  T.eq(vim.fn.getcompletion('BinderyOpen bottomBar ', 'cmdline'), { 'bar' }, 'key completion')
end)

T.test('real clock: bottomBar changes while the person does nothing; login takes 1.5 s', function()
  require('bindery.daemon').stop()
  vim.g.bindery_args = {}
  vim.cmd('BinderyOpen bottomBar')
  local conn = require('bindery.daemon').conn
  local requests = conn.next_id
  T.wait(function() return T.text():match('^== bottomBar ==\nText: Random number: %d+$') end,
    'the timer to change the bar', 15000)
  T.eq(requests, conn.next_id, 'requests sent meanwhile')
  vim.cmd('BinderyOpen login')
  T.goto_line('First name:')
  T.input('A')
  T.type('Ada')
  T.input('<Esc>j')
  T.input('A')
  T.type('King')
  T.input('<Esc>')
  T.goto_line('[ Login ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('[ Login ] running…', 1, true) end, 'running')
  T.expect_buffer([=[
    == login ==
    First name: Ada
    Last name: King
    Can log in: true
    Logging in: false
    Logged-in user: User(firstName: "Ada", lastName: "King", authToken: "123adasdsadasdasdasdd")
    Error:

    [ Login ]
      → firstName: Ada, lastName: King, authToken: 123adasdsadasdasdasdd]=], nil, 15000)
end)
