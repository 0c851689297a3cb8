local T = require('helpers')

T.test('package: a sync command adds an item; arrays of objects read one per line', function()
  vim.cmd('BinderyOpen package')
  T.expect_buffer([=[
    == package ==
    First name: Ada
    Last name: Lovelace
    Street: 12 St James's Square
    Summary: Recipient: Ada Lovelace
             Postal address: 12 St James's Square
             London SW1Y 4JH
             United Kingdom
             Contents:
    Contents: (none)

    [ Add item ]]=])
  T.goto_line('[ Add item ]')
  T.input('<CR>')
  T.input('<CR>')
  T.expect_buffer([=[
    == package ==
    First name: Ada
    Last name: Lovelace
    Street: 12 St James's Square
    Summary: Recipient: Ada Lovelace
             Postal address: 12 St James's Square
             London SW1Y 4JH
             United Kingdom
             Contents: Light bulb 257, Light bulb 275
    Contents:
      - title: Light bulb, weight: 257
      - title: Light bulb, weight: 275

    [ Add item ]
      → done]=])
  -- The cursor stayed on the button while the lines above it grew.
  T.eq(T.row('[ Add item ]'), vim.api.nvim_win_get_cursor(0)[1], 'cursor row')
  T.goto_line('Street:')
  T.input('cc')
  T.type('1 Main St')
  T.input('<Esc>')
  T.expect_buffer([=[
    == package ==
    First name: Ada
    Last name: Lovelace
    Street: 1 Main St
    Summary: Recipient: Ada Lovelace
             Postal address: 1 Main St
             London SW1Y 4JH
             United Kingdom
             Contents: Light bulb 257, Light bulb 275
    Contents:
      - title: Light bulb, weight: 257
      - title: Light bulb, weight: 275

    [ Add item ]
      → done]=])
end)

T.test('element: opened with JSON args on the command line; bad args are an error', function()
  vim.cmd('BinderyOpen element {"symbol":"He"}')
  T.expect_buffer([[
    == element ==
    Name: Helium
    Symbol: He
    Atomic number: 2
    Atomic weight: 4.0026
    Number: Number: 2
    Weight: Weight: 4.0026]])
  local helium = vim.api.nvim_get_current_buf()
  vim.cmd('BinderyOpen element {"symbol": "ca"}')
  T.truthy(vim.api.nvim_get_current_buf() ~= helium, 'a new form')
  T.expect_buffer([[
    == element ==
    Name: Calcium
    Symbol: Ca
    Atomic number: 20
    Atomic weight: 40.078
    Number: Number: 20
    Weight: Weight: 40.078]])
  vim.cmd('BinderyOpen element {"symbol":"Xx"}')
  T.expect_message('unknown element symbol "Xx"; known: H, He')
  T.messages = {}
  vim.cmd('BinderyOpen element {symbol}')
  T.expect_message('must be a JSON object')
  T.eq(vim.api.nvim_get_current_buf() ~= helium, true, 'still on the calcium form')
  -- Every member is read-only.
  T.goto_line('Name:')
  T.messages = {}
  T.input('Ax<Esc>')
  T.expect_message('Name is read%-only')
  T.expect_buffer([[
    == element ==
    Name: Calcium
    Symbol: Ca
    Atomic number: 20
    Atomic weight: 40.078
    Number: Number: 20
    Weight: Weight: 40.078]])
end)
