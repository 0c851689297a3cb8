local T = require('helpers')

-- bindery-replay, built beside the binderyd under test.
local replay = vim.fn.fnamemodify(os.getenv('BINDERYD'), ':h') .. '/bindery-replay'

T.test('record: a form open, :BinderyRecord start, filled in, stop: a transcript that replays', function()
  local file = vim.fn.tempname() .. '.jsonl'
  vim.cmd('BinderyOpen email')
  vim.cmd('BinderyRecord start ' .. file)
  T.goto_line('Email:')
  T.input('A')
  T.type('ada@example.com')
  T.input('<Esc>')
  T.expect_buffer([[
    == email ==
    Email: ada@example.com
    Valid: true
    Validation message: Email is valid]])
  vim.cmd('BinderyClose') -- its session/close answered before the recording is written
  vim.cmd('BinderyRecord stop')
  T.wait(function() return T.messages[#T.messages]:find('recorded %d+ messages to') end, 'the recorded message')
  local lines = vim.fn.readfile(file)
  local header = vim.json.decode(lines[1])
  T.eq({ 'content-length', 'binderyd', { '--deterministic' } }, { header.framing, header.daemon, header.arguments }, 'header')
  T.eq('initialize', vim.json.decode(lines[2])['in'].method, 'the opening comes first')
  T.eq(true, table.concat(lines, '\n'):find('"Email is valid"', 1, true) ~= nil, 'what the form was told')
  -- As a person's CI would: replayed against a fresh daemon.
  local output = vim.fn.system({ replay, '--daemon', os.getenv('BINDERYD'), file })
  T.eq(0, vim.v.shell_error, 'bindery-replay: ' .. output)
  -- And a change the daemon would not make fails, naming the member.
  local changed = vim.tbl_map(function(line) return (line:gsub('Email is valid', 'Email is fine')) end, lines)
  vim.fn.writefile(changed, file)
  output = vim.fn.system({ replay, '--daemon', os.getenv('BINDERYD'), file })
  T.eq(1, vim.v.shell_error, 'bindery-replay on a changed transcript')
  T.eq(true, output:find('params.changes.validationMessage: expected "Email is fine", actual "Email is valid"', 1, true) ~= nil, output)
end)

T.test('record: stop without start says so', function()
  vim.cmd('BinderyRecord stop')
  T.eq(true, T.messages[#T.messages]:find('not recording', 1, true) ~= nil, vim.inspect(T.messages))
end)
