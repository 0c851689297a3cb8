local T = require('helpers')

local framing = require('bindery.framing')
local text = require('bindery.text')

T.test('framing: messages split across reads and several in one read', function()
  local feed = framing.decoder()
  local a, b = '{"id":1}', '{"id":2,"x":"é"}'
  local bytes = framing.encode(a) .. framing.encode(b) .. framing.encode(a)
  local got = {}
  -- One byte at a time, then everything at once.
  for i = 1, #bytes do vim.list_extend(got, (feed(bytes:sub(i, i)))) end
  T.eq({ a, b, a }, got, 'byte by byte')
  T.eq({ a, b, a }, (feed(bytes)), 'in one read')
  -- Headers: case-insensitive, extra headers, \n\n; a bad block is skipped.
  local bodies, problems = feed('content-length: 8\r\nContent-Type: x\r\n\r\n' .. a .. 'Oops\r\n\r\nContent-Length: 8\n\n' .. a)
  T.eq({ a, a }, bodies, 'lenient headers')
  T.eq(1, #problems, 'problems')
end)

T.test('text: a value\'s members in the order its type declares them', function()
  local t = { type = 'object', members = { { name = 'firstName', type = 'string' },
    { name = 'tags', type = 'array', items = { type = 'string' } }, { name = 'n', type = 'integer' } } }
  local v = vim.json.decode('{"n":null,"extra":1,"tags":["a","b"],"firstName":"Ada"}')
  T.eq('firstName: Ada, tags: [a, b], n: null, extra: 1', text.inline(v, t), 'declared, then the others')
  local shape = { type = 'union', cases = { { name = 'circle', members = { { name = 'radius', type = 'number' } } } } }
  T.eq('[{case: circle, radius: 1.5}]', text.inline({ vim.json.decode('{"radius":1.5,"case":"circle"}') },
    { type = 'array', items = shape }, true), "an enum's case first")
  local form = { state = { l = { v, vim.empty_dict() } }, display = {} }
  T.eq('[{"firstName":"Ada","tags":["a","b"],"n":null,"extra":1},{}]',
    text.editable(form, { name = 'l', type = 'array', items = t }), 'a list as its JSON, in that order')
end)

T.test('text: the daemon\'s display drawn, a person\'s line sent as text', function()
  local form = { state = vim.json.decode('{"n":3,"s":"a\\nb","b":true,"l":[1,2],"d":null}'),
    display = { n = '3', d = '' } }
  T.eq({ '3' }, text.lines(form, 'n'), 'display')
  T.eq({ 'a', 'b' }, text.lines(form, 's'), "a string's lines")
  T.eq('a\\nb', text.editable(form, { name = 's', type = 'string' }), 'a line break as \\n')
  T.eq('[x]', text.editable(form, { name = 'b', type = 'boolean' }), 'a checkbox')
  T.eq('[1,2]', text.editable(form, { name = 'l', type = 'array' }), 'a list as its JSON')
  T.eq('', text.editable(form, { name = 'd', type = 'integer' }), 'nil')
  T.eq({ text = 'a\nb' }, text.params({ type = 'string' }, 'a\\nb'), 'escaped newline')
  T.eq({ text = '12' }, text.params({ type = 'integer' }, '12'), 'typed text goes as typed')
  T.eq({ value = false }, text.params({ type = 'boolean' }, '[ ]'), 'a checkbox')
  T.eq({ text = 'yes' }, text.params({ type = 'boolean' }, 'yes'), 'a boolean typed')
  T.eq('expected a whole number', text.refusal({ code = -32602, message = 'x', data = { expected = 'a whole number' } }), 'refused')
  T.eq({ '', '  - id: 1', '  - id: 2' }, text.result_lines(vim.json.decode('[{"id":1},{"id":2}]')), 'a result list')
end)

T.test('discovery: g:bindery_cmd (string or list), $BINDERYD, g:bindery_args', function()
  local discovery = require('bindery.discovery')
  local env = vim.env.BINDERYD
  vim.g.bindery_args = { '--deterministic' }
  vim.g.bindery_cmd = env
  T.eq({ env, '--deterministic' }, discovery.command(), 'string')
  vim.g.bindery_cmd = { 'sh', '-c', 'x' }
  T.eq({ vim.fn.exepath('sh'), '-c', 'x', '--deterministic' }, discovery.command(), 'list')
  vim.g.bindery_cmd = nil
  T.eq({ env, '--deterministic' }, discovery.command(), '$BINDERYD')
  vim.env.BINDERYD = '/nonexistent/binderyd'
  local path = vim.env.PATH
  vim.env.PATH = '/nonexistent'
  local argv, why = discovery.command()
  vim.env.BINDERYD, vim.env.PATH = env, path
  local built = discovery.build_candidates()
  local installed = vim.fn.expand('~/.local/bin/binderyd')
  if vim.fn.executable(installed) == 1 then
    -- ./scripts/install put one there: it comes before the repository's build.
    T.eq(installed, argv and argv[1], 'the installed daemon')
  elseif argv then
    T.truthy(argv[1] == built[1] or argv[1] == built[2], 'the repository build')
  else
    T.truthy(why:find('$BINDERYD', 1, true) and why:find(built[2], 1, true), 'every place tried')
  end
  T.truthy(built[1]:match('/%.build/release/binderyd$') and not built[1]:find('clients'), 'the build is outside clients/')
end)

T.test('commands: completion of types and parsing of :BinderyOpen', function()
  T.eq({ 'addMovie', 'bottomBar', 'element', 'email', 'login', 'movieList', 'package', 'survey' },
    vim.fn.getcompletion('BinderyOpen ', 'cmdline'), 'types')
  T.eq({ 'element', 'email' }, vim.fn.getcompletion('BinderyOpen e', 'cmdline'), 'prefix')
  local parse = require('bindery').parse_open
  T.eq({ 'email' }, { parse('email') }, 'type')
  T.eq({ 'bottomBar', 'bar' }, { parse(' bottomBar  bar ') }, 'key')
  local type, key, args = parse('element {"symbol": "He"}')
  T.eq({ 'element', nil, { symbol = 'He' } }, { type, key, args }, 'args')
  type, key, args = parse('element k {"symbol":"Li"}')
  T.eq({ 'element', 'k', { symbol = 'Li' } }, { type, key, args }, 'key and args')
  T.eq(nil, (parse('element k [1]')), 'args must be an object')
end)

T.test('rpc: a batch response is handled like single ones', function()
  vim.cmd('BinderyOpen email')
  local conn = require('bindery.daemon').conn
  local got = {}
  conn.pending[9001] = function(err, result) got[#got + 1] = { err = err, result = result } end
  conn.pending[9002] = function(err, result) got[#got + 1] = { err = err and err.code, result = result } end
  conn:_receive('[{"jsonrpc":"2.0","id":9001,"result":{"a":1}},{"jsonrpc":"2.0","id":9002,"error":{"code":-32601,"message":"x"}}]')
  T.eq({ { result = { a = 1 } }, { err = -32601 } }, got, 'callbacks')
  -- And the connection still works.
  T.eq('email', T.request('viewModels/describe', { type = 'email' }).viewModels[1].type, 'describe')
end)

T.test('didChange: a skipped revision resynchronises with session/state', function()
  vim.cmd('BinderyOpen email')
  local form = T.form()
  T.request('setField', { session = form.session, field = 'email', value = 'a@b.co' }) -- behind the form's back
  -- Its didChange (revision 1) is dropped, as if lost; the next one is 2.
  T.wait(function() return form.record.revision == 1 end, 'revision 1')
  form.record.revision = 0
  form.state.isValid = false
  form:apply({ session = form.session, revision = 2, changes = {} })
  T.expect_buffer([[
    == email ==
    Email: a@b.co
    Valid: true
    Validation message: Email is valid]])
end)

T.test('didChange: a field being typed in is never overwritten; a pending write is shown until answered', function()
  vim.g.bindery_debounce_ms = 600000 -- written only when this test says
  vim.cmd('BinderyOpen email')
  local form = T.form()
  local mirror = form.conn.mirror
  T.goto_line('Email:')
  T.input('A')
  T.type('me@x.io')
  -- The write sent, and before its answer (nothing is handled until this test yields) a change of
  -- the field from elsewhere: the line shows what was written, never the change.
  require('bindery.edit').send(form, 'email')
  form:apply({ session = form.session, revision = form.record.revision + 1, changes = { email = 'OLD' } })
  T.eq('me@x.io', mirror:shown(form.session, 'email'), 'shown meanwhile')
  T.eq('Email: me@x.io', vim.api.nvim_get_current_line(), 'the line meanwhile')
  -- Answered: the state is what was written (the daemon handled the change first).
  T.wait(function() return form.state.email == 'me@x.io' and not mirror.resync[form.session]
    and not mirror:writing(form.session, 'email') end, 'the written value held')
  -- A change of the field from elsewhere waits until the person leaves it.
  form:apply({ session = form.session, revision = form.record.revision + 1, changes = { email = 'theirs@x.io' } })
  T.eq('Email: me@x.io', vim.api.nvim_get_current_line(), 'the line while typing')
  T.eq({ 2, #'Email: me@x.io' }, vim.api.nvim_win_get_cursor(0), 'cursor')
  T.input('<Esc>')
  T.wait(function() return vim.api.nvim_get_current_line() == 'Email: theirs@x.io' end, 'the remote value after leaving')
end)
