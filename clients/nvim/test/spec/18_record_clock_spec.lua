-- A recording on appd --deterministic, the clock moved with :BinderyAdvanceClock: an async command
-- (quoteFeed's refresh), a timer (its quote stream, the clock tab's ticks), a debounce (search),
-- children and a list splice (tabbedApp's counter rows) — replayed exactly by bindery-replay.
local T = require('helpers')

local api = vim.api
local replay = vim.fn.fnamemodify(os.getenv('BINDERYD'), ':h') .. '/bindery-replay'

-- <CR> on the button labelled label on the first line matching a Lua pattern.
local function press(pattern, label)
  for row, line in ipairs(api.nvim_buf_get_lines(0, 0, -1, false)) do
    if line:find(pattern) then
      T.cursor(row, line:find('[ ' .. label .. ' ]', 1, true) - 1)
      return T.input('<CR>')
    end
  end
  error('no line matches ' .. pattern, 2)
end

local function shows(text)
  return function() return T.text():find(text, 1, true) ~= nil end
end

local function advance(ms)
  local before = #T.messages
  vim.cmd('BinderyAdvanceClock ' .. ms)
  T.wait(function() return #T.messages > before and T.messages[#T.messages]:find('virtual clock at') end, 'the advance')
end

T.test('record: :BinderyAdvanceClock moves the virtual clock; the recording replays exactly', function()
  local file = vim.fn.tempname() .. '.jsonl'
  vim.g.bindery_cmd = T.appd
  vim.g.bindery_args = { '--deterministic' }

  vim.cmd('BinderyOpen tabbedApp')
  vim.cmd('BinderyRecord start ' .. file)
  press('^  %[ Add %]', 'Add')
  T.wait(shows('Title: Counter 1'), 'the first row')
  press('^  %[ Add %]', 'Add')
  T.wait(shows('Title: Counter 2'), 'the second row (a splice)')
  press('^  %[ Start %]', 'Start')
  T.wait(shows('Is running: true'), 'the clock tab running')
  advance(3000)
  T.wait(shows('Ticks: 3'), 'three ticks')

  vim.cmd('BinderyOpen quoteFeed')
  press('^%[ Refresh %]', 'Refresh')
  T.wait(shows('Refreshes: 1'), 'the async refresh')
  advance(2000)
  T.wait(shows('Updates: 2'), 'two quotes from the stream')

  vim.cmd('BinderyOpen search')
  T.goto_line('Query:')
  T.input('A')
  T.type('mo')
  T.input('<Esc>')
  T.wait(function() return require('bindery').form(0).state.query == 'mo' end, 'the query sent')
  T.truthy(T.text():find('Search count: 0', 1, true), 'nothing searched before the debounce')
  advance(300)
  T.wait(shows('Search count: 1'), 'the debounced search')
  advance(200)
  T.wait(shows('Result count: 1'), 'the film found')

  vim.cmd('BinderyRecord stop')
  T.wait(function() return T.messages[#T.messages]:find('recorded %d+ messages to') end, 'the recorded message')
  local lines = vim.fn.readfile(file)
  T.eq({ 'appd', { '--deterministic' } }, { vim.json.decode(lines[1]).daemon, vim.json.decode(lines[1]).arguments }, 'header')
  local text = table.concat(lines, '\n')
  T.truthy(text:find('"clock\\?/advance"'), 'the advances recorded')
  T.truthy(text:find('"splices":{"rows":', 1, true), 'a splice of the rows recorded')

  local output = vim.fn.system({ replay, '--daemon', 'appd=' .. T.appd, file })
  T.eq(0, vim.v.shell_error, 'bindery-replay: ' .. output)
  local changed = vim.tbl_map(function(line) return (line:gsub('"ticks":3', '"ticks":4')) end, lines)
  vim.fn.writefile(changed, file)
  output = vim.fn.system({ replay, '--daemon', 'appd=' .. T.appd, file })
  T.eq(1, vim.v.shell_error, 'bindery-replay on a changed transcript')
  T.truthy(output:find('params.changes.ticks: expected 4, actual 3', 1, true), output)
end)

T.test('record: :BinderyAdvanceClock on the real clock says the daemon refused', function()
  vim.g.bindery_args = {}
  vim.cmd('BinderyOpen email')
  vim.cmd('BinderyAdvanceClock 10')
  T.wait(function() return T.messages[#T.messages]:find('clock/advance:', 1, true) end, 'the refusal')
  vim.cmd('BinderyAdvanceClock soon')
  T.truthy(T.messages[#T.messages]:find('usage: :BinderyAdvanceClock', 1, true), vim.inspect(T.messages))
end)
