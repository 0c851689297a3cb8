-- The value types of protocol.md ("Value types") against the real appd
-- (Examples/AppViewModels): $APPD, else the repository's .build/debug/appd.
local T = require('helpers')

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

T.test('valueCatalogue: every kind of value shown', function()
  open('valueCatalogue')
  T.expect_buffer([=[
    == valueCatalogue ==
    Date: 2025-11-25T10:00:00.250Z
    Id: 0f8fad5b-d9cb-469f-a165-70867728950e
    Link: https://example.com/a?b=c
    Price: 0.3
    Bytes: AAEC+g==
    Selection: [1,2,5]
    Tags: ["a","b"]
    Scores: ["a": 1, "b": 2]
    Priority: normal
    Shape: circle(radius: 1.5)
    Address: Address(street: "1 Main St", city: "Springfield")
    Labels: [{"name":"home","colour":"green"}]
    Context: ["1": [], "2": ["x"]]
    Big count: 9000000000
    Ratio: 0.5
    Window: ClosedRange<Int>(lowerBound: 1, upperBound: 1000000)
    Timeout: 1.5
    Last error: Something went wrong
    Pair: (width: 3, height: 4)

    [ Reset ]]=])
  -- Reset changes a Decimal and the union.
  T.goto_line('[ Reset ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Shape: point', 1, true) end, 'the reset')
  T.truthy(T.text():find('Price: 0\n', 1, true), 'the price')
end)

-- The text every face shows for each member of the catalogue (clients/shared/value-catalogue.json):
-- the daemon's display, a string itself, a list its JSON.
T.test('valueCatalogue: each member shows the text the other faces show', function()
  local file = vim.fn.fnamemodify(T.appd, ':h:h:h') .. '/clients/shared/value-catalogue.json'
  local expected = vim.json.decode(table.concat(vim.fn.readfile(file), '\n'))
  open('valueCatalogue')
  local shown = {}
  for _, field in ipairs(T.form().schema.fields) do
    local line = api.nvim_buf_get_lines(0, T.row(field.label .. ':') - 1, T.row(field.label .. ':'), false)[1]
    shown[field.name] = line:sub(#field.label + 3)
  end
  for _, name in ipairs(vim.tbl_keys(expected)) do T.eq(expected[name], shown[name], name) end
end)

T.test('valueCatalogue: an edit sends the typed text, never a value of its own reading', function()
  open('valueCatalogue')
  local form, sent = T.form(), {}
  local request = form.conn.request
  form.conn.request = function(conn, method, params, callback)
    if method == 'setField' then sent[#sent + 1] = vim.deepcopy(params) end
    return request(conn, method, params, callback)
  end
  T.goto_line('Address:')
  T.input('cc')
  T.type('(street: "2 Elm St", city: 3)')
  T.input('<Esc>')
  T.wait(function() return diagnostics()[1] == 'expected Address(street: .., city: .., floor?: ..)' end, 'refused')
  T.truthy(T.text():find('Address: (street: "2 Elm St", city: 3)', 1, true), 'the typed text stays to fix')
  form.conn.request = request
  T.eq({ { session = form.session, field = 'address', text = '(street: "2 Elm St", city: 3)' } }, sent, 'setField params')
end)

T.test('valueCatalogue: a date typed, refused by the daemon when wrong, stored when right', function()
  open('valueCatalogue')
  T.goto_line('Date:')
  T.input('cc')
  T.type('2025-13-01T10:00:00Z')
  T.input('<Esc>')
  T.wait(function() return #diagnostics() > 0 end, 'a diagnostic')
  T.eq({ 'expected a date and time, ISO 8601 (2025-11-25T10:00:00Z)' }, diagnostics(), 'why')
  T.truthy(T.text():find('Date: 2025-13-01T10:00:00Z', 1, true), 'the typed text stays')
  T.eq('2025-11-25T10:00:00.250Z', state('date'), 'nothing written')
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
  T.type('abc')
  T.input('<Esc>')
  T.wait(function() return diagnostics()[1] == 'expected a decimal number (0.30)' end, 'a decimal refused')
  T.input('cc')
  T.type('0.10')
  T.input('<Esc>')
  T.wait(function() return state('price') == '0.1' end, 'the price')
  T.goto_line('Selection:')
  T.input('cc')
  T.type('[1, 2, 5, 9]')
  T.input('<Esc>')
  T.wait(function() return vim.deep_equal(state('selection'), { 1, 2, 5, 9 }) end, 'the selection')
  T.goto_line('Scores:')
  T.input('cc')
  T.type('["a": 1, "b": 2, "c": 3]')
  T.input('<Esc>')
  T.wait(function() return state('scores').c == 3 end, 'the scores')
  T.goto_line('Shape:')
  T.input('cc')
  T.type('hexagon')
  T.input('<Esc>')
  T.wait(function() return diagnostics()[1] == 'expected one of circle(..), rectangle(..), point' end, 'a case refused')
  T.input('cc')
  T.type('rectangle(2, 3.5)')
  T.input('<Esc>')
  T.wait(function() return #diagnostics() == 0 end, 'the shape read')
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
  -- A command's argument typed: sent as text, refused with what the daemon expected.
  vim.ui.input = function(_, on_confirm) on_confirm('nothing') end
  T.goto_line('[ Toggle ]')
  T.input('<CR>')
  vim.ui.input = T.original_input
  T.wait(function() return T.text():find('[ Toggle ]\n  ✗ expected TodoItem(id: .., title: .., isDone: .., due?: ..)', 1, true) end, 'refused')
  -- A due date: a bad one is refused by the daemon, and nothing is written.
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
    State: loaded([Film(id: 2, title: "Modern Times", year: 1936)])
    Result count: 1
    Search count: 1]=])
  T.eq({ 'loading', 'loaded' }, seen, 'the cases shown')
  T.input('cc')
  T.type('error')
  T.input('<Esc>')
  T.wait(function() return T.text():find('State: failed("The film service is offline")', 1, true) end, 'failed')
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

T.test('favorites: a set edited as a list, a dictionary of errors in its display', function()
  open('favorites')
  T.goto_line('[ Validate ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Errors: ["favoriteIDs": "Pick at least one favourite"]\n', 1, true) end, 'an error')
  T.cursor(T.row('  - [ Toggle favorite ] id: 2'), 6)
  T.input('<CR>')
  T.wait(function() return T.text():find('Favorite IDs: [2]\n', 1, true) end, 'a favourite')
  T.goto_line('Favorite IDs:')
  T.input('cc')
  T.type('[2, 3, 3]')
  T.input('<Esc>')
  T.wait(function() return vim.deep_equal(state('favoriteIDs'), { 2, 3 }) end, 'duplicates merged')
  T.goto_line('[ Validate ]')
  T.input('<CR>')
  T.wait(function() return T.text():find('Errors: [:]', 1, true) end, 'no errors')
end)
