-- A shared daemon (reached through `binderyd --remote`) that died under the
-- forms: connects again on its own, backing off as the web page does, and
-- reopens each keyed form's session (same type and key; the daemon that
-- `--remote auto` starts restores its values from disk). A form without a
-- key cannot be found again: it says its session is closed. A daemon the
-- plugin spawned itself over pipes is not reconnected (daemon.lua).
--
-- An attempt never waits: it starts the forwarder, and `initialize` and the
-- reopens are answered in callbacks, so the editor keeps working meanwhile.
-- One that gets no answer within g:bindery_reconnect_timeout_ms is abandoned
-- (its process killed) and the next one scheduled.
local compat = require('bindery.compat')
local log = require('bindery.log')
local settings = require('bindery.settings')
local ui = require('bindery.ui')

local uv = compat.uv
local M = {
  attempt = 0,   -- attempts since the last connection (the backoff's step)
  timer = nil,   -- the next attempt
  waiting = {},  -- keyed root form -> what happened to its daemon
  current = nil, -- the attempt under way: {conn, reopening = {form -> why}, reopened = {...}, timer}
  failure = nil, -- what the last attempt met, said in the forms until one succeeds
  status = nil,  -- what comes next, said in the forms: "reconnecting in 2 s…"
}

-- clients/web/static/connection.js's delays.
local BACKOFF_MS = { 250, 500, 1000, 2000, 4000, 5000 }

local function daemon() return require('bindery.daemon') end

local function seconds(ms)
  return ('%g s'):format(ms / 1000)
end

local function stop_timer(timer)
  if timer then
    timer:stop()
    if not timer:is_closing() then timer:close() end
  end
end

-- Each waiting form's status: how its daemon ended, what the last attempt met, what comes next.
local function say()
  for form, why in pairs(M.waiting) do
    form:die(M.failure and ('%s; %s; %s'):format(why, M.failure, M.status) or ('%s; %s'):format(why, M.status))
  end
end

local try

local function schedule()
  local delay = BACKOFF_MS[math.min(M.attempt + 1, #BACKOFF_MS)]
  M.attempt = M.attempt + 1
  M.status = ('reconnecting in %s…'):format(seconds(delay))
  say()
  stop_timer(M.timer)
  M.timer = vim.defer_fn(try, delay)
end

-- The attempt ended without reconnecting (failure says how): its forms wait
-- again, those it had reopened too (their connection is gone or being killed).
local function fail(attempt, failure)
  if M.current ~= attempt then return end
  M.current = nil
  stop_timer(attempt.timer)
  for form, why in pairs(attempt.reopening) do M.waiting[form] = why end
  for form, why in pairs(attempt.reopened) do
    if not form.closed then M.waiting[form] = why end
  end
  M.failure = failure
  log.note('reconnecting: ' .. failure)
  schedule()
end

-- Every form of the attempt has its answer: reconnected.
local function finish(attempt)
  if M.current ~= attempt or next(attempt.reopening) ~= nil then return end
  M.current = nil
  stop_timer(attempt.timer)
  M.attempt, M.failure = 0, nil
  if next(M.waiting) ~= nil then schedule() end -- lost from another connection meanwhile
end

-- The attempt's limit ran out: its process is stopped, the next attempt scheduled.
local function expire(attempt, limit)
  if M.current ~= attempt then return end
  local failure = ('the last attempt got no answer within %s and was stopped'):format(seconds(limit))
  fail(attempt, failure)
  if attempt.conn then daemon().abandon(attempt.conn, 'binderyd did not answer within ' .. seconds(limit)) end
end

-- Connected: each waiting form's session is opened again; the answers come in callbacks.
local function reopen(attempt, conn)
  attempt.conn = conn
  for form, why in pairs(M.waiting) do
    if not form.closed then attempt.reopening[form] = why end
  end
  M.waiting = {}
  for form in pairs(attempt.reopening) do
    conn:request('session/open', { type = form.type, key = form.key, args = form.args }, function(err, result)
      if err and conn.closed then return end -- the connection ended: `lost` fails the attempt
      local why = attempt.reopening[form]
      if M.current ~= attempt or why == nil or form.closed then
        -- Abandoned, or the form wiped meanwhile: a session that opened anyway is closed.
        if not err then conn:request('session/close', { session = result.session }, function() end) end
        if M.current == attempt then
          attempt.reopening[form] = nil
          finish(attempt)
        end
        return
      end
      attempt.reopening[form] = nil
      if err then
        form:die(('reconnected, but %s (%s) did not reopen: %s'):format(form.type, form.key, err.message))
      else
        attempt.reopened[form] = why
        form:reattach(conn, result)
        ui.info(('reconnected: %s (%s) reopened%s'):format(form.type, form.key,
          result.restored == true and ', its values restored' or ''))
      end
      finish(attempt)
    end)
  end
  finish(attempt)
end

function try()
  M.timer = nil
  for form in pairs(M.waiting) do
    if form.closed then M.waiting[form] = nil end -- wiped meanwhile
  end
  if next(M.waiting) == nil then return end
  local limit = settings.current('reconnect_timeout_ms')
  local attempt = { reopening = {}, reopened = {} }
  M.current = attempt
  M.status = 'reconnecting…'
  say()
  attempt.timer = uv.new_timer()
  attempt.timer:start(limit, 0, vim.schedule_wrap(function() expire(attempt, limit) end))
  local start = daemon().connect(function(conn, why)
    if M.current ~= attempt then return end -- abandoned meanwhile
    if not conn then return fail(attempt, 'the last attempt failed: ' .. why) end
    reopen(attempt, conn)
  end)
  attempt.conn = start and start.conn
end

-- The shared daemon behind forms (root forms of its connection) ended, as
-- `why` says: keyed ones wait for the next connection, the others close.
-- An attempt under way whose connection this was has failed.
function M.lost(why, forms, conn)
  local added = false
  for _, form in ipairs(forms) do
    if not form.key then
      form:die(why .. '; this form\'s session is closed (it had no key to reopen it by); :BinderyOpen starts a new one')
    elseif M.waiting[form] == nil then
      M.waiting[form], added = why, true
    end
  end
  if M.current and M.current.conn == conn then return fail(M.current, 'the last attempt failed: ' .. why) end
  if not added then return end
  -- An attempt under way or scheduled: these forms join it.
  if M.current or M.timer then return say() end
  -- As the web page: a daemon that died is first tried again after a second, not hammered.
  M.attempt = math.max(M.attempt, 2)
  M.failure = nil
  schedule()
end

-- No more attempts (Neovim exits, or the daemon is stopped on purpose): one
-- under way is abandoned, its process stopped.
function M.cancel()
  stop_timer(M.timer)
  M.timer = nil
  local attempt = M.current
  M.current = nil
  if attempt then
    stop_timer(attempt.timer)
    if attempt.conn then
      attempt.conn.stopping = true -- said as stopped: its forms do not reconnect
      daemon().abandon(attempt.conn, 'reconnecting was cancelled')
    end
  end
  M.waiting, M.attempt, M.failure, M.status = {}, 0, nil, nil
end

return M
