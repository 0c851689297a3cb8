-- A shared daemon (reached through `binderyd --remote`) that died under the
-- forms: connects again on its own, backing off as the web page does, and
-- reopens each keyed form's session (same type and key; the daemon that
-- `--remote auto` starts restores its values from disk). A form without a
-- key cannot be found again: it says its session is closed. A daemon the
-- plugin spawned itself over pipes is not reconnected (daemon.lua).
local log = require('bindery.log')
local ui = require('bindery.ui')

local M = {
  attempt = 0,  -- attempts since the last connection
  timer = nil,  -- the next attempt
  waiting = {}, -- keyed root form -> what happened to its daemon
}

-- clients/web/static/connection.js's delays.
local BACKOFF_MS = { 250, 500, 1000, 2000, 4000, 5000 }

local function daemon() return require('bindery.daemon') end

local function seconds(ms)
  return ('%g s'):format(ms / 1000)
end

local function cancel_timer()
  if M.timer then
    M.timer:stop()
    if not M.timer:is_closing() then M.timer:close() end
    M.timer = nil
  end
end

local try

local function schedule()
  local delay = BACKOFF_MS[math.min(M.attempt + 1, #BACKOFF_MS)]
  M.attempt = M.attempt + 1
  for form, why in pairs(M.waiting) do form:die(('%s; reconnecting in %s…'):format(why, seconds(delay))) end
  cancel_timer()
  M.timer = vim.defer_fn(try, delay)
end

function try()
  M.timer = nil
  for form in pairs(M.waiting) do
    if form.closed then M.waiting[form] = nil end -- wiped meanwhile
  end
  if next(M.waiting) == nil then return end
  local conn, why = daemon().ensure()
  if not conn then
    log.note('reconnecting: ' .. why)
    return schedule()
  end
  M.attempt = 0
  local waiting = M.waiting
  M.waiting = {}
  for form in pairs(waiting) do
    conn:request('session/open', { type = form.type, key = form.key, args = form.args }, function(err, result)
      if form.closed then
        if not err then conn:request('session/close', { session = result.session }, function() end) end
        return
      end
      if err then
        form:die(('reconnected, but %s (%s) did not reopen: %s'):format(form.type, form.key, err.message))
        return
      end
      form:reattach(conn, result)
      ui.info(('reconnected: %s (%s) reopened%s'):format(form.type, form.key,
        result.restored == true and ', its values restored' or ''))
    end)
  end
end

-- The shared daemon behind forms (root forms of its connection) ended, as
-- `why` says: keyed ones wait for the next connection, the others close.
function M.lost(why, forms)
  for _, form in ipairs(forms) do
    if form.key then
      M.waiting[form] = why
    else
      form:die(why .. '; this form\'s session is closed (it had no key to reopen it by); :BinderyOpen starts a new one')
    end
  end
  if next(M.waiting) == nil then return end
  -- As the web page: a daemon that died is first tried again after a second, not hammered.
  M.attempt = math.max(M.attempt, 2)
  schedule()
end

-- No more attempts (Neovim exits, or the daemon is stopped on purpose).
function M.cancel()
  cancel_timer()
  M.waiting, M.attempt = {}, 0
end

return M
