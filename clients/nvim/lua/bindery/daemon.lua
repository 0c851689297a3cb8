-- The one binderyd of this Neovim: started on first use, initialized, asked
-- for its schemas, told to shut down on exit. Routes didChange to the form
-- that owns the session and tells the forms when the daemon dies.
local discovery = require('bindery.discovery')
local log = require('bindery.log')
local mirror = require('bindery.mirror')
local rpc = require('bindery.rpc')

local M = {
  conn = nil,     -- the live connection, nil when no daemon runs
  schemas = {},   -- type -> schema
  types = {},     -- types in the daemon's order
  sessions = {},  -- session id -> live form
  capabilities = {}, -- what the daemon agreed to in initialize ({splices = true})
  buffers = {},   -- buffer -> form (dead ones too, until wiped)
  starting = nil, -- the start under way, {conn, waiters}: one at a time, a second caller joins it
}

-- Ends a start: each waiter is told, once, the connection or why there is none.
local function settle(starting, conn, why)
  if M.starting ~= starting then return end
  M.starting = nil
  for _, waiter in ipairs(starting.waiters) do waiter(conn, why) end
end

local function exited(conn, code, signal)
  if M.conn == conn then M.conn = nil end
  local why
  if conn.stopping then
    why = 'binderyd stopped'
  elseif conn.abandoned then
    why = conn.abandoned
  elseif signal and signal ~= 0 then
    why = ('binderyd was killed (signal %d)'):format(signal)
  else
    why = ('binderyd exited (code %d)'):format(code)
    -- binderyd --remote says how the shared daemon ended (killed by signal 9) and where its log is.
    local said = (conn.stderr_tail or ''):match('binderyd %-%-remote: error: ([^\n]*)\n?$')
    if code ~= 0 and said then why = why .. ': ' .. said end
  end
  log.note(why)
  -- It ended before it answered initialize: whoever waits for it is told why.
  if M.starting and M.starting.conn == conn then
    settle(M.starting, nil, 'binderyd did not initialize: ' .. why .. ' (see :BinderyLog)')
  end
  local forms = {}
  for session, form in pairs(M.sessions) do
    if form.conn == conn then
      M.sessions[session] = nil
      if form.root == form then forms[#forms + 1] = form end -- its children die with it
    end
  end
  if conn.shared and not conn.stopping then
    require('bindery.reconnect').lost(why, forms, conn)
  else
    for _, form in ipairs(forms) do form:die(why .. '; :BinderyOpen starts a new one') end
  end
end

local function remember(schemas)
  M.schemas, M.types = {}, {}
  for _, schema in ipairs(schemas or {}) do
    M.schemas[schema.type] = schema
    M.types[#M.types + 1] = schema.type
  end
end

-- Starts the daemon and sends `initialize` without waiting for it: on_ready(conn) runs when it
-- answers, on_ready(nil, why) when it cannot start, refuses, exits first or is abandoned
-- (M.abandon). Either runs later, from the main loop. Returns the start, or nil when there is
-- none to wait for (a daemon runs already, or none can be started).
function M.connect(on_ready)
  if M.conn then
    local conn = M.conn
    vim.schedule(function() on_ready(conn) end)
    return nil
  end
  if M.starting then
    table.insert(M.starting.waiters, on_ready)
    return M.starting
  end
  local argv, why = discovery.command()
  if not argv then
    vim.schedule(function() on_ready(nil, why) end)
    return nil
  end
  local conn
  conn, why = rpc.start(argv, {
    on_notification = function(method, params)
      -- This daemon's (running, or starting: bindery-dev says its build before it answers).
      local ours = M.conn == conn or (M.starting ~= nil and M.starting.conn == conn)
      if method == 'didChange' and ours then
        local form = M.sessions[params.session]
        if form then form:apply(params) end
      elseif ours then
        require('bindery.devloop').notification(conn, method, params) -- bindery-dev's
      end
    end,
    on_stderr = log.stderr,
    on_exit = function(code, signal) exited(conn, code, signal) end,
  })
  if not conn then
    vim.schedule(function() on_ready(nil, why) end)
    return nil
  end
  conn.mirror = mirror.new() -- what the daemon told this connection (lua/bindery/mirror.lua)
  -- A shared daemon, reached through the forwarder: should it die, the forms reconnect (reconnect.lua).
  for _, arg in ipairs(argv) do
    if arg == '--remote' or vim.startswith(arg, '--remote=') then conn.shared = true end
  end
  log.note(('started %s (pid %d)'):format(table.concat(argv, ' '), conn.pid))
  local starting = { conn = conn, waiters = { on_ready } }
  M.starting = starting
  -- bindery-dev (the developer loop) builds the package before it answers: the first build of a
  -- new package can take minutes.
  starting.building = vim.fn.fnamemodify(argv[1], ':t') == 'bindery-dev'
  if starting.building then
    vim.notify('Bindery: bindery-dev builds the package first (progress in :BinderyLog)', vim.log.levels.INFO)
  end
  conn:request('initialize', {
    clientInfo = { name = 'bindery.nvim' },
    -- Splices: a list that gains a movie sends the movie, not the list.
    -- Display: the daemon's text for every value (text.lua), and setField with text.
    capabilities = { splices = true, display = true },
  }, function(err, result)
    if M.starting ~= starting then return end -- abandoned meanwhile
    if err and conn.closed then return end -- exited: `exited` says how (the forwarder's last words)
    if err then
      conn.abandoned = 'binderyd did not initialize: ' .. err.message
      conn:kill('sigkill')
      return settle(starting, nil, conn.abandoned .. ' (see :BinderyLog)')
    end
    conn:notify('initialized', vim.empty_dict())
    M.capabilities = type(result.capabilities) == 'table' and result.capabilities or {}
    remember(result.viewModels)
    M.conn = conn
    settle(starting, conn)
  end)
  return starting
end

-- Gives up on a connection that does not answer (a start or a reconnect's reopens): its
-- process is killed, a start's waiters are told why, and its end is said as `why`.
function M.abandon(conn, why)
  if M.starting and M.starting.conn == conn then settle(M.starting, nil, why) end
  if M.conn == conn then M.conn = nil end
  if conn.closed then return end
  conn.abandoned = why
  log.note(('stopping pid %d: %s'):format(conn.pid, why))
  conn:kill('sigkill')
end

-- The running daemon's connection, starting one if needed and waiting for its `initialize`
-- (a command that needs the daemon now: :BinderyOpen, its completion); or nil and why.
function M.ensure()
  if M.conn then return M.conn end
  local done, conn, why = false, nil, nil
  local starting = M.connect(function(c, w) done, conn, why = true, c, w end)
  local limit = starting and starting.building and 600000 or 20000
  local _, status = vim.wait(limit, function() return done end, 5)
  if not done then
    why = 'binderyd did not initialize: ' .. (status == -2 and 'interrupted' or 'initialize timed out')
    if starting then M.abandon(starting.conn, why) end
    return nil, why .. ' (see :BinderyLog)'
  end
  return conn, why
end

-- A type's schema, from initialize or else viewModels/describe; or nil, why.
function M.schema(type)
  local conn, why = M.ensure()
  if not conn then return nil, why end
  if M.schemas[type] then return M.schemas[type] end
  local result, err = conn:request_sync('viewModels/describe', { type = type }, 10000)
  if not result then return nil, err.message end
  local schema = result.viewModels[1]
  M.schemas[type] = schema
  return schema
end

-- Shuts the daemon down (VimLeavePre, tests). Its forms say it stopped.
function M.stop()
  require('bindery.reconnect').cancel()
  local conn = M.conn
  if not conn then return end
  conn.stopping = true
  conn:stop(2000)
end

return M
