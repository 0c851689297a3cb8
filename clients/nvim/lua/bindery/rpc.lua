-- JSON-RPC 2.0 with a child process over its stdin/stdout (Content-Length
-- framing). Knows nothing of forms: it matches responses to callbacks and
-- hands notifications, stderr and the exit to the handlers it was given.
local compat = require('bindery.compat')
local framing = require('bindery.framing')
local log = require('bindery.log')
local settings = require('bindery.settings')

local uv = compat.uv
local M = {}

local Conn = {}
Conn.__index = Conn

local function trace(dir, body)
  if settings.current('trace') then log.note(dir .. ' ' .. body) end
  require('bindery.record').tap(dir, body) -- :BinderyRecord
end

-- Spawns argv and returns a connection, or nil and why. handlers:
-- on_notification(method, params), on_exit(code, signal), on_stderr(chunk).
-- All of them run on the main loop (scheduled), in the order things arrived.
function M.start(argv, handlers)
  local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local self = setmetatable({ next_id = 0, pending = {}, handlers = handlers, closed = false, stderr_tail = '' }, Conn)
  -- The exit is handled once stderr has ended too (a forwarder's last words say how its daemon
  -- ended), or a second after it, should a grandchild keep stderr open.
  local exit_status, stderr_ended, exit_handled = nil, false, false
  local function handle_exit()
    if exit_handled or not exit_status then return end
    exit_handled = true
    vim.schedule(function() self:_exited(exit_status[1], exit_status[2]) end)
  end
  local handle, pid = uv.spawn(argv[1], {
    args = vim.list_slice(argv, 2),
    stdio = { stdin, stdout, stderr },
  }, function(code, signal)
    exit_status = { code, signal }
    if stderr_ended then return handle_exit() end
    local timer = uv.new_timer()
    timer:start(1000, 0, function()
      timer:close()
      handle_exit()
    end)
  end)
  if not handle then
    for _, pipe in ipairs({ stdin, stdout, stderr }) do pipe:close() end
    return nil, ('cannot start %s: %s'):format(argv[1], pid)
  end
  self.handle, self.pid, self.stdin, self.stdout, self.stderr = handle, pid, stdin, stdout, stderr
  local feed = framing.decoder()
  stdout:read_start(function(_, chunk)
    if not chunk then return end
    local bodies, problems = feed(chunk)
    if #bodies + #problems == 0 then return end
    -- One scheduled call per read keeps messages in arrival order.
    vim.schedule(function()
      for _, problem in ipairs(problems) do log.note('framing: ' .. problem) end
      for _, body in ipairs(bodies) do self:_receive(body) end
    end)
  end)
  stderr:read_start(function(_, chunk)
    if chunk then
      self.stderr_tail = (self.stderr_tail .. chunk):sub(-4096)
      vim.schedule(function() handlers.on_stderr(chunk) end)
    else
      stderr_ended = true
      handle_exit()
    end
  end)
  return self
end

function Conn:_write(message)
  if self.closed then return false end
  local body = vim.json.encode(message)
  trace('-->', body)
  self.stdin:write(framing.encode(body))
  return true
end

-- Sends a request; callback(err, result) runs once, with err a JSON-RPC error
-- object ({code, message, data}) or nil. Returns the request id.
function Conn:request(method, params, callback)
  self.next_id = self.next_id + 1
  local id = self.next_id
  if self.closed then
    vim.schedule(function() callback({ code = -32099, message = 'binderyd is not running' }) end)
    return id
  end
  self.pending[id] = callback
  self:_write({ jsonrpc = '2.0', id = id, method = method, params = params })
  return id
end

function Conn:notify(method, params)
  return self:_write({ jsonrpc = '2.0', method = method, params = params })
end

-- Waits for the answer (for commands that must report at once). Returns
-- result, err; err.code is -32098 on timeout. on_result(result), if given,
-- runs as a result arrives, before any message behind it.
function Conn:request_sync(method, params, timeout, on_result)
  local done, err, result = false, nil, nil
  self:request(method, params, function(e, r)
    done, err, result = true, e, r
    if on_result and not e then on_result(r) end
  end)
  if not vim.wait(timeout or 10000, function() return done end, 5) then
    return nil, { code = -32098, message = method .. ' timed out' }
  end
  return result, err
end

function Conn:_receive(body)
  trace('<--', body)
  local ok, message = pcall(vim.json.decode, body)
  if not ok then
    log.note('unreadable message from binderyd: ' .. tostring(message))
    return
  end
  -- A batch answer is an array of responses; we never send batches, but
  -- handle one the same way as single messages.
  if compat.islist(message) then
    for _, item in ipairs(message) do self:_dispatch(item) end
  else
    self:_dispatch(message)
  end
end

function Conn:_dispatch(message)
  if type(message) ~= 'table' then return end
  if message.method ~= nil then
    if message.id == nil then
      self.handlers.on_notification(message.method, message.params)
    else
      -- The daemon sends no requests; answer as JSON-RPC requires anyway.
      self:_write({ jsonrpc = '2.0', id = message.id,
        error = { code = -32601, message = 'Method not found: ' .. tostring(message.method) } })
    end
    return
  end
  local callback = self.pending[message.id]
  if not callback then
    if message.error then log.note('error from binderyd: ' .. vim.json.encode(message.error)) end
    return
  end
  self.pending[message.id] = nil
  if message.error ~= nil and message.error ~= vim.NIL then
    callback(message.error, nil)
  else
    callback(nil, message.result)
  end
end

function Conn:_exited(code, signal)
  if self.closed then return end
  self.closed = true
  for _, pipe in ipairs({ self.stdin, self.stdout, self.stderr }) do
    if not pipe:is_closing() then pipe:close() end
  end
  if not self.handle:is_closing() then self.handle:close() end
  local how = (signal and signal ~= 0) and ('signal ' .. signal) or ('code ' .. tostring(code))
  local err = { code = -32099, message = 'binderyd exited (' .. how .. ')' }
  local pending = self.pending
  self.pending = {}
  for _, callback in pairs(pending) do callback(err, nil) end
  self.handlers.on_exit(code, signal)
end

function Conn:kill(signal)
  if not self.closed and self.handle and not self.handle:is_closing() then
    self.handle:kill(signal or 'sigterm')
  end
end

-- Polite stop: shutdown, exit, then a signal if it lingers. Blocks briefly,
-- which is what VimLeavePre needs.
function Conn:stop(timeout)
  if self.closed then return end
  timeout = timeout or 2000
  self:request_sync('shutdown', nil, timeout)
  self:notify('exit', nil)
  if not vim.wait(timeout, function() return self.closed end, 5) then
    self:kill('sigkill')
    vim.wait(timeout, function() return self.closed end, 5)
  end
end

return M
