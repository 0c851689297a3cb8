-- The value types of protocol.md ("Value types") against the real appd
-- (Examples/AppViewModels): $APPD, else the repository's .build/debug/appd.
local T = require('helpers')
local json = require('bindery.json')
local types = require('bindery.types')

local api = vim.api

local function appd()
  vim.g.bindery_cmd = T.appd
  vim.g.bindery_args = { '--deterministic' }
end

local function open(type)
  appd()
  vim.cmd('BinderyOpen ' .. type)
  return api.nvim_get_current_buf()
end

local function state(name)
  return T.request('session/state', { session = T.form().session }).state[name]
end

-- Answers the next vim.ui.select with the item `choice`, noting what was offered.
local function choose(choice)
  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      offered[#offered + 1] = opts.format_item and opts.format_item(item) or item
    end
    for _, item in ipairs(items) do
      if (opts.format_item and opts.format_item(item) or item) == choice then return on_choice(item) end
    end
    on_choice(nil)
  end
  return offered
end

local function diagnostics()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do found[#found + 1] = d.message end
  return found
end

T.test('types: one-line text of every kind, read back and checked', function()
  local t = {
    date = { type = 'string', format = 'date-time' },
    uuid = { type = 'string', format = 'uuid' },
    decimal = { type = 'string', format = 'decimal' },
    byte = { type = 'string', format = 'byte' },
    set = { type = 'array', items = { type = 'integer' }, uniqueItems = true },
    tags = { type = 'array', items = { type = 'string' }, uniqueItems = true },
    dict = { type = 'dictionary', values = { type = 'array', items = { type = 'string' } } },
    shape = { type = 'union', cases = {
      { name = 'circle', members = { { name = 'radius', type = 'number' } } },
      { name = 'rectangle', members = { { name = '_0', type = 'number' }, { name = '_1', type = 'number' } } },
      { name = 'point', members = {} } } },
    address = { type = 'object', members = { { name = 'street', type = 'string' },
      { name = 'floor', type = 'integer', nullable = true, optional = true } } },
  }
  T.eq({ true, '2026-01-01T09:30:00+01:00' }, { types.parse(t.date, ' 2026-01-01T09:30:00+01:00 ') }, 'a date')
  T.eq({ true, '2025-11-25T10:00:00.250Z' }, { types.parse(t.date, '2025-11-25T10:00:00.250Z') }, 'milliseconds')
  for _, bad in ipairs({ '2025-13-01T10:00:00Z', '2025-02-29T10:00:00Z', '2025-11-25', '2025-11-25T10:00Z', '2025-11-25T10:00:00' }) do
    T.eq(false, (types.parse(t.date, bad)), bad)
  end
  T.eq('"tomorrow" is not a date and time, ISO 8601 like 2025-11-25T10:00:00Z', select(2, types.parse(t.date, 'tomorrow')), 'why')
  T.eq(false, (types.parse(t.uuid, '0f8fad5b-d9cb-469f-a165-70867728950')), 'short uuid')
  T.eq(true, (types.parse(t.uuid, '0F8FAD5B-D9CB-469F-A165-70867728950E')), 'upper-case uuid')
  T.eq({ true, '0.30' }, { types.parse(t.decimal, '0.30') }, 'a decimal stays a string')
  T.eq(false, (types.parse(t.decimal, '1,5')), 'a comma')
  T.eq(false, (types.parse(t.byte, 'AAEC+g=')), 'base64 padding')
  T.eq({ true, { 1, 2, 5 } }, { types.parse(t.set, '1, 2,5') }, 'a set')
  T.eq({ true, { 1, 2 } }, { types.parse(t.set, '[1, 2]') }, 'a set as JSON')
  T.eq('item 2: "x" is not a number', select(2, types.parse(t.set, '1, x')), 'an item')
  T.eq('a, "b, c"', types.text(t.tags, { 'a', 'b, c' }), 'a string with a comma')
  T.eq({ true, { 'a', 'b, c' } }, { types.parse(t.tags, 'a, "b, c"') }, 'read back')
  local dict = json.decode('{"1":[],"2":["x"]}')
  T.eq('1: [], 2: [x]', types.text(t.dict, dict), 'a dictionary')
  T.eq('{"1":[],"2":["x","y"]}', json.encode(select(2, types.parse(t.dict, '1: [], 2: [x, y]'))), 'read back')
  T.eq('circle(radius: 1.5)', types.text(t.shape, { case = 'circle', radius = 1.5 }), 'a labelled case')
  T.eq('rectangle(2, 3)', types.text(t.shape, { case = 'rectangle', _0 = 2, _1 = 3 }), 'an unlabelled case')
  T.eq('point', types.text(t.shape, { case = 'point' }), 'a case without members')
  T.eq({ true, { case = 'rectangle', _0 = 2, _1 = 3 } }, { types.parse(t.shape, 'rectangle(2, 3)') }, 'read back')
  T.eq({ true, { case = 'circle', radius = 2 } }, { types.parse(t.shape, 'circle(2)') }, 'by position')
  T.eq('circle needs radius', select(2, types.parse(t.shape, 'circle')), 'a missing member')
  T.eq('"oval" is not one of: circle, rectangle, point', select(2, types.parse(t.shape, 'oval')), 'no such case')
  T.eq({ true, { street = '1 Main St' } }, { types.parse(t.address, 'street: 1 Main St, floor: ') }, 'an optional member left out')
  T.eq('floor: "x" is not a number', select(2, types.parse(t.address, 'street: a, floor: x')), 'a member')
  T.eq('street is missing', select(2, types.parse(t.address, 'floor: 2')), 'a required member')
end)

T.test('valueCatalogue: every kind of value shown', function()
  open('valueCatalogue')
  T.expect_buffer([=[
    == valueCatalogue ==
    Date: 2025-11-25T10:00:00.250Z
    Id: 0f8fad5b-d9cb-469f-a165-70867728950e
    Link: https://example.com/a?b=c
    Price: 0.3
    Bytes: AAEC+g==
    Selection: 1, 2, 5
    Tags: a, b
    Scores: a: 1, b: 2
    Priority: normal
    Shape: circle(radius: 1.5)
    Address: street: 1 Main St, city: Springfield
    Labels: {name: home, colour: green}
    Context: 1: [], 2: [x]
    Big count: 9000000000
    Ratio: 0.5
    Window: lowerBound: 1, upperBound: 1000000
    Timeout: 1.5
    Last error: Something went wrong
    Pair: width: 3, height: 4

    [ Reset ]]=])
  -- Reset changes a Decimal and the union.
  T.goto_line('[ Reset ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Shape: point', 1, true) end, 'the reset')
  T.truthy(T.text():find('Price: 0\n', 1, true), 'the price')
end)

T.test('valueCatalogue: a date typed, refused locally when wrong, stored when right', function()
  open('valueCatalogue')
  T.goto_line('Date:')
  T.input('cc')
  T.type('2025-13-01T10:00:00Z')
  T.input('<Esc>')
  T.wait(function() return #diagnostics() > 0 end, 'a diagnostic')
  T.eq({ '"2025-13-01T10:00:00Z" is not a date and time, ISO 8601 like 2025-11-25T10:00:00Z' }, diagnostics(), 'why')
  T.eq('2025-11-25T10:00:00.250Z', state('date'), 'nothing sent')
  T.input('cc')
  T.type('2026-01-01T09:30:00+01:00')
  T.input('<Esc>')
  -- The daemon keeps it in UTC, and says so.
  T.wait(function() return T.text():find('Date: 2026-01-01T08:30:00.000Z', 1, true) end, 'the stored date')
  T.eq({}, diagnostics(), 'no diagnostic')
  T.eq('2026-01-01T08:30:00.000Z', state('date'), 'in the daemon')
  -- A decimal, a set, a dictionary, a union (its case picked, its member typed).
  T.goto_line('Price:')
  T.input('cc')
  T.type('1,5')
  T.input('<Esc>')
  T.wait(function() return diagnostics()[1] == '"1,5" is not a decimal number like 12.50' end, 'a decimal refused')
  T.input('cc')
  T.type('0.10')
  T.input('<Esc>')
  T.wait(function() return state('price') == '0.1' end, 'the price')
  T.goto_line('Selection:')
  T.input('A')
  T.type(', 9')
  T.input('<Esc>')
  T.wait(function() return vim.deep_equal(state('selection'), { 1, 2, 5, 9 }) end, 'the selection')
  T.goto_line('Scores:')
  T.input('A')
  T.type(', c: 3')
  T.input('<Esc>')
  T.wait(function() return state('scores').c == 3 end, 'the scores')
  choose('rectangle')
  local asked = {}
  vim.ui.input = function(opts, on_confirm)
    asked[#asked + 1] = opts.prompt
    on_confirm(#asked == 1 and '2' or '3.5')
  end
  T.goto_line('Shape:')
  T.input('<CR>')
  vim.ui.input = T.original_input
  T.eq({ 'rectangle _0 (number): ', 'rectangle _1 (number): ' }, asked, 'prompts')
  T.wait(function() return T.text():find('Shape: rectangle(2, 3.5)', 1, true) end, 'the shape')
  T.eq({ case = 'rectangle', _0 = 2, _1 = 3.5 }, state('shape'), 'in the daemon')
end)

T.test('todoList: add two to-dos, toggle one with its row button', function()
  open('todoList')
  for _, title in ipairs({ 'Buy milk', 'Call Ada' }) do
    T.goto_line('New title:')
    T.input('A')
    T.type(title)
    T.input('<Esc>')
    T.goto_line('[ Add ]')
    T.input('<CR>')
    T.wait(function() return T.text():find('title: ' .. title, 1, true) end, title)
  end
  T.wait(function() return T.text():find('Remaining count: 2', 1, true) end, 'two remaining')
  local text = T.text()
  local id1 = text:match('%[ Toggle %] %[ Delete %] id: (%x+%-[%x-]+), title: Buy milk, isDone: false\n')
  local id2 = text:match('%[ Toggle %] %[ Delete %] id: (%x+%-[%x-]+), title: Call Ada, isDone: false\n')
  T.truthy(id1 and id2, 'rows with buttons: ' .. text)
  T.expect_buffer(([=[
    == todoList ==
    New title: 
    New due: 
    Filter: all
    Items:
      - [ Toggle ] [ Delete ] id: %s, title: Buy milk, isDone: false
      - [ Toggle ] [ Delete ] id: %s, title: Call Ada, isDone: false
    Visible items:
      - [ Toggle ] [ Delete ] id: %s, title: Buy milk, isDone: false
      - [ Toggle ] [ Delete ] id: %s, title: Call Ada, isDone: false
    Remaining count: 2

    [ Add ]
      → done
    [ Toggle ]
    [ Delete ]
    [ Clear completed ]]=]):format(id1, id2, id1, id2))
  -- <CR> on the second row's [ Toggle ]: the row's value goes as the argument.
  local row = T.row('  - [ Toggle ] [ Delete ] id: ' .. id2)
  T.cursor(row, 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Remaining count: 1', 1, true) end, 'one remaining')
  T.truthy(T.text():find('id: ' .. id2 .. ', title: Call Ada, isDone: true', 1, true), 'done')
  T.truthy(T.text():find('id: ' .. id1 .. ', title: Buy milk, isDone: false', 1, true), 'the other not')
  T.eq(true, state('items')[2].isDone, 'in the daemon')
  -- [ Delete ] on the first row, by the column under the cursor.
  T.cursor(T.row('  - [ Toggle ] [ Delete ] id: ' .. id1), 17)
  T.input('<CR>')
  T.wait(function() return not T.text():find('Buy milk', 1, true) end, 'deleted')
  -- A due date: a bad one is refused before it is sent.
  T.goto_line('New due:')
  T.input('A')
  T.type('friday')
  T.input('<Esc>')
  T.wait(function() return #diagnostics() == 1 end, 'a diagnostic')
  T.eq(vim.NIL, state('newDue'), 'nothing sent')
end)

T.test('settings: enum pickers, Int raw values and a Foundation enum', function()
  open('settings')
  local offered = choose('miles')
  T.goto_line('Distance unit:')
  T.input('<CR>')
  T.eq({ 'kilometers', 'miles' }, offered, 'Int-raw cases')
  T.wait(function() return T.text():find('Goal summary: 5 mi a day', 1, true) end, 'miles')
  offered = choose('long')
  T.goto_line('Unit style:')
  T.input('<CR>')
  T.eq({ 'short', 'medium', 'long' }, offered, "Foundation's UnitStyle")
  T.wait(function() return T.text():find('Goal summary: 5 miles a day', 1, true) end, 'long')
  T.eq('long', state('unitStyle'), 'in the daemon')
  T.truthy(T.text():find('Reminder time: 2026-01-01T08:00:00.000Z', 1, true), 'a date field')
end)

T.test('search: the union state changes, idle to loading to loaded (the real clock)', function()
  -- The real clock: the search waits 300 ms for typing to pause, the fake service 200 ms.
  appd()
  vim.g.bindery_args = {}
  vim.cmd('BinderyOpen search')
  T.expect_buffer([=[
    == search ==
    Query: 
    State: idle
    Result count: 0
    Search count: 0]=])
  local form, seen = T.form(), {}
  local apply = form.apply
  form.apply = function(self, params)
    local changed = params.changes and params.changes.state
    if changed then seen[#seen + 1] = changed.case end
    return apply(self, params)
  end
  T.goto_line('Query:')
  T.input('A')
  T.type('Mo')
  T.input('<Esc>')
  T.expect_buffer([=[
    == search ==
    Query: Mo
    State: loaded
      - id: 2, title: Modern Times, year: 1936
    Result count: 1
    Search count: 1]=])
  T.eq({ 'loading', 'loaded' }, seen, 'the cases shown')
  T.input('cc')
  T.type('error')
  T.input('<Esc>')
  T.wait(function() return T.text():find('State: failed(The film service is offline)', 1, true) end, 'failed')
  T.input('cc')
  T.input('<Esc>')
  T.wait(function() return T.text():find('State: idle', 1, true) end, 'idle again')
end)

T.test('order: Decimal totals exactly, lines added and removed by row', function()
  open('order')
  T.cursor(T.row('  - [ Add ] sku: cup'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Total: 0.1\n', 1, true) end, 'a cup')
  T.cursor(T.row('  - [ Add ] sku: pot'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Total: 0.3\n', 1, true) end, '0.1 + 0.2 is 0.3')
  T.cursor(T.row('  - [ Add ] sku: pot'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Subtotal: 0.5\n', 1, true) end, 'two pots')
  T.truthy(T.text():find('  - [ Remove ] product: {sku: pot, name: Teapot, price: 0.2}, quantity: 2', 1, true), 'a line')
  T.goto_line('Coupon code:')
  T.input('A')
  T.type('SAVE10')
  T.input('<Esc>')
  T.wait(function() return T.text():find('Discount: 0.05\nTotal: 0.45\n', 1, true) end, 'the discount')
  T.cursor(T.row('  - [ Remove ] product: {sku: cup'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Total: 0.36\n', 1, true) end, 'without the cup: ' .. T.text())
  T.goto_line('[ Place order ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Lines: (none)', 1, true) end, 'placed')
  T.truthy(T.text():find('Placed order ID: %x+%-'), 'an order id')
end)

T.test('favorites: a set edited as a list, a dictionary of errors as lines', function()
  open('favorites')
  T.goto_line('[ Validate ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Errors:\n  favoriteIDs: Pick at least one favourite\n', 1, true) end, 'an error')
  T.cursor(T.row('  - [ Toggle favorite ] id: 2'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Favorite IDs: 2\n', 1, true) end, 'a favourite')
  T.goto_line('Favorite IDs:')
  T.input('A')
  T.type(', 3, 3')
  T.input('<Esc>')
  T.wait(function() return vim.deep_equal(state('favoriteIDs'), { 2, 3 }) end, 'duplicates merged')
  T.goto_line('[ Validate ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Errors: (none)', 1, true) end, 'no errors')
end)
