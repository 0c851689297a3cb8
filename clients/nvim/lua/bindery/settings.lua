-- The g: variables that configure the plugin, each read by one function here.
-- What a person naturally writes works: a string where a list is expected, a
-- number written as a string, ~ in a path, v:true or 1. Anything else is
-- refused with a message that names the variable and what it takes, rather
-- than becoming a Lua error deep inside libuv or a timer callback.
local ui = require('bindery.ui')
local compat = require('bindery.compat')
local uv = compat.uv

local M = {}

-- What each variable takes, for the messages.
local EXPECTS = {
  cmd = "a program (a string, like '~/.local/bin/binderyd') or a list: the program, then its arguments",
  args = "a list of strings, like ['--deterministic'], or one string of arguments separated by spaces",
  debounce_ms = 'a number of milliseconds, like 150',
  reconnect_timeout_ms = 'a number of milliseconds above 0, like 20000',
  trace = 'v:true or v:false (or 1 or 0)',
}
local DEFAULTS = { debounce_ms = 150, reconnect_timeout_ms = 20000, trace = false }

-- A value as :let would write it.
local function shown(value)
  local ok, text = pcall(vim.fn.string, value)
  return ok and text or vim.inspect(value)
end

local function refusal(name, value)
  return ('g:bindery_%s should be %s, not %s'):format(name, EXPECTS[name], shown(value))
end

local function unset(value)
  return value == nil or value == vim.NIL
end

-- An argument starting with ~ or ~/, expanded as a shell would. ($HOME read
-- now: Vim's own ~ is the home it started with.)
function M.tilde(word)
  if word == '~' or word:sub(1, 2) == '~/' then
    return uv.os_homedir() .. word:sub(2)
  end
  return word
end

-- A Vim list or Lua list as strings (numbers become strings, ~ expanded),
-- or nil if it is not a list of strings and numbers.
local function words(list)
  if type(list) ~= 'table' or not compat.islist(list) then return nil end
  local out = {}
  for i, word in ipairs(list) do
    if type(word) == 'number' then word = tostring(word) end
    if type(word) ~= 'string' then return nil end
    out[i] = M.tilde(word)
  end
  return out
end

-- g:bindery_cmd as a list, program first; nil when unset (or empty), or nil
-- and why. The program is as written: discovery finds and checks it.
function M.cmd()
  local value = vim.g.bindery_cmd
  if unset(value) or value == '' then return nil end
  if type(value) == 'string' then return { M.tilde(value) } end
  local list = words(value)
  if list and #list == 0 then return nil end
  if list and type(value[1]) == 'string' then return list end
  return nil, refusal('cmd', value)
end

-- g:bindery_args as a list of strings, or nil and why.
function M.args()
  local value = vim.g.bindery_args
  if unset(value) then return {} end
  local list = words(type(value) == 'string' and vim.split(value, '%s+', { trimempty = true }) or value)
  if list then return list end
  return nil, refusal('args', value)
end

-- g:bindery_<name> as a whole number of milliseconds, at least `least`; or nil and why.
local function milliseconds(name, least)
  local value = vim.g['bindery_' .. name]
  if unset(value) then return DEFAULTS[name] end
  local n = type(value) == 'number' and value or type(value) == 'string' and tonumber(vim.trim(value))
  -- Below 2^31: libuv timers take an integer.
  if n and n >= least and n < 2 ^ 31 then return math.floor(n) end
  return nil, refusal(name, value)
end

-- g:bindery_debounce_ms: the pause after typing before a value is sent (edit.lua).
function M.debounce_ms() return milliseconds('debounce_ms', 0) end

-- g:bindery_reconnect_timeout_ms: how long a reconnect attempt may go unanswered (reconnect.lua).
function M.reconnect_timeout_ms() return milliseconds('reconnect_timeout_ms', 1) end

local TRUTH = {
  ['1'] = true, ['true'] = true, on = true, yes = true,
  ['0'] = false, ['false'] = false, off = false, no = false, [''] = false,
}

-- g:bindery_trace as a boolean (0 is off, as in Vim), or nil and why.
function M.trace()
  local value = vim.g.bindery_trace
  if unset(value) then return false end
  if type(value) == 'boolean' then return value end
  if type(value) == 'number' then return value ~= 0 end
  if type(value) == 'string' and TRUTH[vim.trim(value):lower()] ~= nil then
    return TRUTH[vim.trim(value):lower()]
  end
  return nil, refusal('trace', value)
end

local warned = {}

-- The settings a form reads: the first refusal, if any. (The daemon's,
-- g:bindery_cmd and g:bindery_args, are checked when it starts.)
function M.check()
  for _, name in ipairs({ 'debounce_ms', 'reconnect_timeout_ms', 'trace' }) do
    local _, why = M[name]()
    if why then return nil, why end
  end
  warned = {} -- a value made bad after this is told again
  return true
end

-- A form setting's value, or its default after saying why: for reads while
-- typing or per message, where there is nothing to refuse. Says it once per
-- bad value, not at every key.
function M.current(name)
  local value, why = M[name]()
  if not why then
    warned[name] = nil
    return value
  end
  if warned[name] ~= why then
    warned[name] = why
    ui.warn(('%s; using %s'):format(why, tostring(DEFAULTS[name])))
  end
  return DEFAULTS[name]
end

return M
