local T = require('helpers')

T.test('email: typing at the end of the Email line validates live', function()
  vim.cmd('BinderyOpen email')
  T.expect_buffer([[
    == email ==
    Email: 
    Valid: false
    Validation message: Email is invalid]])
  T.goto_line('Email:')
  T.input('A')
  T.type('ada@example.com')
  T.eq('i', T.mode(), 'mode while typing')
  -- Still in Insert mode: the debounced write went out and the outputs
  -- changed in place around the line being typed in.
  T.expect_buffer([[
    == email ==
    Email: ada@example.com
    Valid: true
    Validation message: Email is valid]])
  T.eq({ 2, #'Email: ada@example.com' }, vim.api.nvim_win_get_cursor(0), 'cursor')
  T.input('<Esc>')
  T.eq('n', T.mode(), 'mode')
  local state = T.request('session/state', { session = T.form().session }).state
  T.eq('ada@example.com', state.email, 'email in the daemon')
end)

T.test('email: cc and ciw change the value, never the label', function()
  vim.cmd('BinderyOpen email')
  T.goto_line('Email:')
  T.input('A')
  T.type('old@example.com')
  T.input('<Esc>')
  T.expect_buffer([[
    == email ==
    Email: old@example.com
    Valid: true
    Validation message: Email is valid]])
  T.input('cc')
  T.eq('i', T.mode(), 'mode after cc')
  T.type('bad')
  T.input('<Esc>')
  T.expect_buffer([[
    == email ==
    Email: bad
    Valid: false
    Validation message: Email is invalid]])
  T.goto_line('Email:')
  T.input('$ciw')
  T.type('ok@b.co')
  T.input('<Esc>')
  T.expect_buffer([[
    == email ==
    Email: ok@b.co
    Valid: true
    Validation message: Email is valid]])
end)

T.test('email: an edit of an output is undone with a message', function()
  vim.cmd('BinderyOpen email')
  local before = T.text()
  T.goto_line('Validation message:')
  T.input('Ax<Esc>')
  T.expect_message('Validation message is read%-only')
  T.expect_buffer(before)
  T.messages = {}
  T.goto_line('Valid:')
  T.input('0dw')
  T.expect_message('Valid is read%-only')
  T.expect_buffer(before)
  -- <CR> on an output does nothing but say so.
  T.messages = {}
  T.input('<CR>')
  T.expect_message('Valid is read%-only')
end)

T.test('email: deleting, joining, adding lines or pasting newlines restores the form', function()
  vim.cmd('BinderyOpen email')
  T.goto_line('Email:')
  T.input('A')
  T.type('a@b.co')
  T.input('<Esc>')
  local expected = [[
    == email ==
    Email: a@b.co
    Valid: true
    Validation message: Email is valid]]
  T.expect_buffer(expected)
  for _, keys in ipairs({ 'dd', 'J', 'ofoo<Esc>', 'yyp', 'ggdG', 'A<C-r>="x\\ny"<CR><Esc>', '"ayyj"ap' }) do
    T.messages = {}
    T.goto_line('Email:')
    T.input(keys)
    local ok, err = pcall(T.expect_buffer, expected)
    if not ok then error(keys .. ': ' .. err) end
    T.expect_message('restored')
  end
  -- A damaged label is restored too, and the value kept.
  T.messages = {}
  T.goto_line('Email:')
  T.input('0x')
  T.expect_message('label "Email" cannot be edited')
  T.expect_buffer(expected)
  -- In Insert mode a damaged label waits until the person leaves it.
  T.messages = {}
  T.goto_line('Email:')
  T.input('0i')
  T.type('X')
  T.eq('XEmail: a@b.co', vim.api.nvim_get_current_line(), 'the line while typing')
  T.eq(0, #T.messages, 'messages while typing')
  T.input('<BS><Del><Esc>')
  T.expect_message('label "Email" cannot be edited')
  T.expect_buffer(expected)
  -- Enter in Insert mode ends the edit instead of splitting the line.
  T.goto_line('Email:')
  T.input('A')
  T.type('m')
  T.input('<CR>')
  T.eq('n', T.mode(), 'mode after <CR>')
  T.expect_buffer([[
    == email ==
    Email: a@b.com
    Valid: true
    Validation message: Email is valid]])
  local state = T.request('session/state', { session = T.form().session }).state
  T.eq('a@b.com', state.email, 'email in the daemon')
end)

T.test('email: the cursor stays put while outputs change and lines are restored', function()
  vim.cmd('BinderyOpen email')
  T.goto_line('Email:')
  T.input('A')
  T.type('x@y.io')
  T.expect_buffer([[
    == email ==
    Email: x@y.io
    Valid: true
    Validation message: Email is valid]])
  T.eq({ 2, #'Email: x@y.io' }, vim.api.nvim_win_get_cursor(0), 'cursor in Insert mode')
  T.type('!')
  T.expect_buffer([[
    == email ==
    Email: x@y.io!
    Valid: false
    Validation message: Email is invalid]])
  T.eq({ 2, #'Email: x@y.io!' }, vim.api.nvim_win_get_cursor(0), 'cursor in Insert mode')
  T.input('<Esc>')
end)
