-- :BinderyRecord start|stop FILE: the exchange with the daemon as this editor saw it, written as a
-- transcript (protocol.md, "Transcripts") that BinderyTesting's Transcript.replay or bindery-replay
-- replays against a fresh daemon. Every body rpc.lua writes or reads passes through tap().
--
-- A replay starts a fresh daemon, so a recording must hold the opening of the forms it drives: the
-- exchange is kept from the connection's start (initialize, each form's session/open), and a
-- recording is that exchange up to stop. Start says you want one, so a form already open can be
-- recorded; a daemon started again (:BinderyOpen after it stopped) starts the log afresh.

local KEPT = 50000 -- messages kept per connection; past that the start is lost, and stop says so

local M = {
  log = {},          -- the connection's exchange, as {direction, body}
  lost = false,
  daemon = nil,      -- serverInfo.name from initialize
  active = nil,      -- {file} while recording
}

-- A body sent ('-->') or received ('<--').
function M.tap(direction, body)
  if direction == '-->' and body:find('"method":"initialize"', 1, true) then
    M.log, M.lost, M.daemon = {}, false, nil
  end
  -- bindery-dev's own notifications (daemon/reloaded ...): no daemon sends them, so none replays.
  if direction == '<--' and body:find('"method":"daemon/', 1, true) then return end
  M.log[#M.log + 1] = { direction, body }
  if #M.log > KEPT then
    table.remove(M.log, 1)
    M.lost = true
  end
  if direction == '<--' and not M.daemon and body:find('"serverInfo"', 1, true) then
    local ok, message = pcall(vim.json.decode, body)
    if ok and type(message) == 'table' and type(message.result) == 'table' and type(message.result.serverInfo) == 'table' then
      M.daemon = message.result.serverInfo.name
    end
  end
end

-- The daemon options a replay needs, read from the daemon command (g:bindery_cmd, g:bindery_args).
local function replay_arguments()
  local ok, argv = pcall(function() return require('bindery.discovery').command() end)
  local arguments = {}
  if not ok or type(argv) ~= 'table' then return arguments end
  for index, word in ipairs(argv) do
    if word == '--deterministic' then
      arguments[#arguments + 1] = word
    elseif word == '--seed' and argv[index + 1] then
      vim.list_extend(arguments, { word, argv[index + 1] })
    end
  end
  return arguments
end

function M.start(file)
  if not file or file == '' then return nil, ':BinderyRecord start needs a file' end
  M.active = { file = vim.fn.fnamemodify(file, ':p') }
  return M.active.file
end

-- Writes the recording to its file; returns the file and the number of messages, or nil and why.
-- Requests already sent get their answers in it first (up to 2 s: a form closed just before).
function M.stop(file)
  local active = M.active
  if not active then return nil, 'not recording (:BinderyRecord start FILE)' end
  local conn = require('bindery.daemon').conn -- its requests still waiting for their answers
  vim.wait(2000, function() return not (conn and next(conn.pending)) end, 10)
  M.active = nil
  local path = (file and file ~= '') and vim.fn.fnamemodify(file, ':p') or active.file
  local header = { framing = 'content-length', daemon = M.daemon or 'binderyd', arguments = replay_arguments() }
  local out = { vim.json.encode(header) }
  local lines = M.log
  for _, line in ipairs(lines) do
    out[#out + 1] = (line[1] == '-->' and '{"in":' or '{"out":') .. line[2] .. '}'
  end
  local ok, err = pcall(vim.fn.writefile, out, path)
  if not ok then return nil, 'cannot write ' .. path .. ': ' .. tostring(err) end
  if M.lost then return path, #lines, 'the recording lost its start (too long): replays will fail' end
  return path, #lines
end

function M.command(args)
  local action, file = args:match('^%s*(%S*)%s*(.-)%s*$')
  local ui = require('bindery.ui')
  if action == 'start' then
    local path, why = M.start(file)
    if not path then return ui.error(why) end
    ui.info('recording to ' .. path .. ' (:BinderyRecord stop)')
  elseif action == 'stop' then
    local path, count, warning = M.stop(file)
    if not path then return ui.error(count) end
    if warning then ui.warn(warning) end
    ui.info(('recorded %d messages to %s'):format(count, path))
  else
    ui.error('usage: :BinderyRecord start FILE | stop [FILE]')
  end
end

return M
