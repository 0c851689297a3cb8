-- :BinderyRecord start|stop FILE: the exchange with the daemon as this editor saw it, written as a
-- transcript (protocol.md, "Transcripts") that BinderyTesting's Transcript.replay or bindery-replay
-- replays against a fresh daemon. Every body rpc.lua writes or reads passes through tap().
--
-- The connection's opening (initialize, initialized) is kept aside as it happens and starts every
-- recording, so a replay asks for the same capabilities. A replay starts a fresh daemon, whose
-- first session is 1: record from before you open the form (:BinderyRecord start, :BinderyOpen,
-- type, :BinderyRecord stop).
local json = require('bindery.json')

local M = {
  opening = {},      -- the current connection's initialize exchange, as {direction, body}
  opening_done = false,
  daemon = nil,      -- serverInfo.name from initialize
  active = nil,      -- {file, lines} while recording
}

-- A body sent ('-->') or received ('<--').
function M.tap(direction, body)
  local line = { direction, body }
  if direction == '-->' and body:find('"method":"initialize"', 1, true) then
    M.opening, M.opening_done, M.daemon = {}, false, nil
  end
  if not M.opening_done then
    M.opening[#M.opening + 1] = line
    local ok, message = pcall(json.decode, body)
    if ok and type(message) == 'table' then
      if type(message.result) == 'table' and type(message.result.serverInfo) == 'table' then
        M.daemon = message.result.serverInfo.name
      end
      if message.method == 'initialized' then M.opening_done = true end
    end
    return
  end
  if M.active then table.insert(M.active.lines, line) end
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
  M.active = { file = vim.fn.fnamemodify(file, ':p'), lines = {} }
  return M.active.file
end

-- Whether a request recorded since the start has no answer recorded yet.
local function unanswered(lines)
  local asked, answered = {}, {}
  for _, line in ipairs(lines) do
    local ok, message = pcall(json.decode, line[2])
    if ok and type(message) == 'table' and message.id ~= nil then
      if line[1] == '-->' and message.method then asked[message.id] = true end
      if line[1] == '<--' and message.method == nil then answered[message.id] = true end
    end
  end
  for id in pairs(asked) do
    if not answered[id] then return true end
  end
  return false
end

-- Writes the recording to its file; returns the file and the number of messages, or nil and why.
-- Requests already sent get their answers in it first (up to 2 s: a form closed just before).
function M.stop(file)
  local active = M.active
  if not active then return nil, 'not recording (:BinderyRecord start FILE)' end
  vim.wait(2000, function() return not unanswered(active.lines) end, 10)
  M.active = nil
  local path = (file and file ~= '') and vim.fn.fnamemodify(file, ':p') or active.file
  local header = { framing = 'content-length', daemon = M.daemon or 'binderyd', arguments = replay_arguments() }
  local out = { json.encode(header) }
  local lines = vim.list_extend(vim.list_slice(M.opening), active.lines)
  for _, line in ipairs(lines) do
    out[#out + 1] = (line[1] == '-->' and '{"in":' or '{"out":') .. line[2] .. '}'
  end
  local ok, err = pcall(vim.fn.writefile, out, path)
  if not ok then return nil, 'cannot write ' .. path .. ': ' .. tostring(err) end
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
    local path, count = M.stop(file)
    if not path then return ui.error(count) end
    ui.info(('recorded %d messages to %s'):format(count, path))
  else
    ui.error('usage: :BinderyRecord start FILE | stop [FILE]')
  end
end

return M
