-- The commands: open, close, cancel, log; plus a request escape hatch.
local daemon = require('bindery.daemon')
local form_module = require('bindery.form')
local log = require('bindery.log')
local settings = require('bindery.settings')
local ui = require('bindery.ui')

local api = vim.api
local M = {}

local function show(form, mods)
  local win = vim.fn.bufwinid(form.buf)
  if (mods or '') == '' and win ~= -1 then
    api.nvim_set_current_win(win)
    return
  end
  if (mods or '') ~= '' then
    vim.cmd(mods .. ' split')
  elseif vim.bo.modified and vim.bo.buftype == '' and not vim.o.hidden then
    vim.cmd('split') -- do not abandon unsaved work
  end
  api.nvim_win_set_buf(0, form.buf)
end

-- Opens a form for a new session of `type`, or for the live session held
-- by opts.key. opts: key, args (a table: the type's constructor arguments),
-- mods (":vertical" and the like). Returns the form, or nil after an error.
function M.open(type, opts)
  opts = opts or {}
  local ok, why = settings.check()
  local schema, form
  if ok then schema, why = daemon.schema(type) end
  if schema then
    local conn = daemon.conn
    local _, err = conn:request_sync('session/open', { type = type, key = opts.key, args = opts.args }, 20000,
      function(result)
        -- Registered as the answer comes, so a didChange right behind it (a timer) finds its form.
        form = daemon.sessions[result.session] or form_module.new(conn, schema, result, opts.key, opts.args)
      end)
    why = err and err.message
  end
  if why then
    ui.error(why)
    return nil
  end
  show(form, opts.mods)
  return form
end

-- The form shown in buffer buf (default: current), if any.
function M.form(buf)
  if buf == nil or buf == 0 then buf = api.nvim_get_current_buf() end
  return daemon.buffers[buf]
end

function M.close(buf)
  local form = M.form(buf)
  if not form then
    ui.warn('not a Bindery form')
    return
  end
  form:close()
  if api.nvim_buf_is_valid(form.buf) then
    api.nvim_buf_delete(form.buf, { force = true })
  end
end

function M.cancel(buf)
  local form = M.form(buf)
  if not form then return ui.warn('not a Bindery form') end
  require('bindery.actions').cancel(form)
end

function M.log()
  return log.open()
end

-- Sends any request to the daemon and waits for it: result, err. For
-- scripts and tests (clock/advance in deterministic mode, session/state).
function M.request(method, params, timeout)
  local conn, why = daemon.ensure()
  if not conn then return nil, { code = -32099, message = why } end
  return conn:request_sync(method, params or vim.empty_dict(), timeout)
end

-- :BinderyOpen {type} [{key}] [{args as a JSON object}]
function M.parse_open(text)
  local type, rest = text:match('^%s*(%S+)%s*(.-)%s*$')
  if not type then return nil, 'usage: :BinderyOpen {type} [{key}] [{JSON args}]' end
  local key
  if rest ~= '' and rest:sub(1, 1) ~= '{' then
    key, rest = rest:match('^(%S+)%s*(.-)$')
  end
  local args
  if rest ~= '' then
    local ok, value = pcall(vim.json.decode, rest)
    if not ok or vim.fn.type(value) ~= vim.v.t_dict then
      return nil, 'the arguments must be a JSON object, like {"symbol":"He"}'
    end
    args = value
  end
  return type, key, args
end

function M.complete(arglead, cmdline, pos)
  -- The words after the command's name (modifiers like :vertical come before it).
  local rest = cmdline:sub(1, pos):match('Bindery%a*%s+(.*)$') or ''
  local words = vim.split(rest, '%s+')
  local position = #words -- 1: the type, 2: a key
  local found = {}
  if position == 1 then
    if not daemon.ensure() then return {} end
    for _, type in ipairs(daemon.types) do
      if vim.startswith(type, arglead) then found[#found + 1] = type end
    end
  elseif position == 2 then
    for _, form in pairs(daemon.sessions) do
      if form.key and form.type == words[1] and vim.startswith(form.key, arglead) then
        found[#found + 1] = form.key
      end
    end
  end
  table.sort(found)
  return found
end

return M
