-- A form: one session of a view model type, shown in one buffer. Holds the
-- session's state as the daemon last said it, plus what the person typed.
local actions = require('bindery.actions')
local daemon = require('bindery.daemon')
local edit = require('bindery.edit')
local json = require('bindery.json')
local log = require('bindery.log')
local text = require('bindery.text')
local view = require('bindery.view')

local api = vim.api
local M = {}

local Form = {}
Form.__index = Form

local group = api.nvim_create_augroup('bindery_forms', { clear = true })

local function buffer_name(form)
  local name = ('bindery://%s/%d'):format(form.type, form.session)
  local n = 1
  while vim.fn.bufexists(name) == 1 do -- a dead form of an earlier daemon
    n = n + 1
    name = ('bindery://%s/%d~%d'):format(form.type, form.session, n)
  end
  return name
end

-- The child view model types a schema shows, nested in it (protocol.md,
-- "Child view models"): typeName -> schema.
local function collect(schema, found)
  found = found or {}
  local function visit(t)
    if type(t) ~= 'table' then return end
    if t.type == 'viewModel' and type(t.schema) == 'table' and t.schema.fields then
      if not found[t.typeName] then
        found[t.typeName] = t.schema
        collect(t.schema, found)
      end
    elseif t.type == 'array' then
      visit(t.items)
    end
  end
  for _, field in ipairs(schema.fields or {}) do visit(field) end
  return found
end

-- One session's part of a form: its schema, state and what was typed. The
-- root (the session opened) owns the buffer; its child sessions are drawn
-- in that buffer too, each a Form of its own (root = the buffer's form).
local function session_form(conn, schema, session, revision, state, display)
  local self = setmetatable({
    conn = conn, schema = schema, type = schema.type,
    session = session, revision = revision or 0, state = state or {},
    display = display or {}, -- member -> the daemon's text for its value
    fields = {},     -- name -> field schema
    text = {},       -- writable field -> text shown (the buffer's, once typed)
    sent = {},       -- writable field -> text last sent or received
    stale = {},      -- fields the daemon changed while the person typed in them
    write_id = {},   -- field -> id of the latest setField
    timers = {},     -- field -> pause timer of a write
    errors = {},     -- field -> message, shown as a diagnostic
    pending = {},    -- command -> id of its unanswered invoke
    results = {},    -- command -> {ok, value | message}
    writing = 0,     -- setField requests not answered yet
    splices = {},    -- list member -> splice ops applied to state, not yet drawn
    history = {},    -- id of an unanswered session/undo or redo -> whether it changed anything
  }, Form)
  for _, field in ipairs(schema.fields) do
    self.fields[field.name] = field
    if field.writable then
      self.text[field.name] = text.editable(self, field)
      self.sent[field.name] = self.text[field.name]
    end
  end
  return self
end

-- result: session/open's {session, revision, state, children}.
function M.new(conn, schema, result, key)
  local self = session_form(conn, schema, result.session, result.revision, result.state, result.display)
  self.key = key
  self.root = self
  self.children = {}    -- session id -> child Form, every descendant
  self.child_schemas = collect(schema)
  self.damaged, self.spin = {}, 0
  daemon.sessions[self.session] = self
  self:adopt(result.children)

  local buf = api.nvim_create_buf(true, true)
  self.buf = buf
  api.nvim_buf_set_name(buf, buffer_name(self))
  vim.bo[buf].bufhidden = 'hide'
  -- Every value is live in the daemon; undoing would replay stale renders.
  vim.bo[buf].undolevels = -1
  vim.bo[buf].filetype = 'bindery'
  daemon.sessions[self.session] = self
  daemon.buffers[buf] = self

  view.render(self, true)
  edit.attach(self)
  actions.attach(self)
  api.nvim_create_autocmd('InsertLeave', { group = group, buffer = buf, callback = function()
    vim.schedule(function()
      if self.closed then return end
      view.render(self)
      edit.flush(self)
      edit.settle(self)
    end)
  end })
  api.nvim_create_autocmd('BufLeave', { group = group, buffer = buf, callback = function()
    if not self.closed then edit.flush(self) end
  end })
  api.nvim_create_autocmd({ 'BufWipeout', 'BufDelete' }, { group = group, buffer = buf, callback = function()
    self:close()
  end })
  api.nvim_create_autocmd('BufReadCmd', { group = group, buffer = buf, callback = function()
    -- :edit reloads the buffer: draw the form again instead of reading a file.
    self.blocks = nil
    edit.attach(self)
    view.render(self, true)
  end })
  return self
end

-- A didChange for this session.
function Form:apply(params)
  if self.closed or self.dead or self.root.closed then return end
  local revision = tonumber(params.revision)
  if revision and revision <= self.revision then return end
  local gap = revision and revision ~= self.revision + 1
  self.revision = revision or self.revision
  local cause = type(params.cause) == 'number' and params.cause or nil
  if cause and self.history[cause] ~= nil then self.history[cause] = true end
  for name, value in pairs(params.changes or {}) do
    -- A change caused before our latest write of the field is outdated by it.
    local superseded = cause and self.write_id[name] and cause < self.write_id[name]
    if not superseded then self:take(name, value, params.display) end
  end
  for name, splice in pairs(params.splices or {}) do
    if not self:splice(name, splice) then gap = true end
  end
  self:adopt(params.children)
  self:detach(params.detached)
  if gap then self:resync() end
  view.render(self.root)
end

-- Children the daemon shows for the first time ({"<id>": {type, revision,
-- state}}), or all of them again (session/state): new ones become Forms
-- drawn in the root's buffer and told their own didChange.
function Form:adopt(children)
  if type(children) ~= 'table' then return end
  local root = self.root
  for key, entry in pairs(children) do
    local id = tonumber(key)
    local child = id and root.children[id]
    if child and type(entry.state) == 'table' then -- a resynchronisation
      child.revision = tonumber(entry.revision) or child.revision
      for name, value in pairs(entry.state) do child:take(name, value, entry.display) end
    elseif id and type(entry) == 'table' then
      local schema = root.child_schemas[entry.type] or daemon.schemas[entry.type]
        or { type = tostring(entry.type), fields = {}, commands = {} }
      child = session_form(self.conn, schema, id, tonumber(entry.revision), entry.state, entry.display)
      child.root = root
      root.children[id] = child
      daemon.sessions[id] = child
    end
  end
end

-- Child sessions the daemon closed (a removed row, a detail hidden): they
-- go, with every child no longer reachable from the root.
function Form:detach(ids)
  if type(ids) ~= 'table' or #ids == 0 then return end
  local root = self.root
  for _, id in ipairs(ids) do
    local child = root.children[tonumber(id)]
    if child then child:forget() end
  end
  root:prune()
end

-- Forgets the children no longer reachable from the root's state.
function Form:prune()
  local root = self
  local reachable = {}
  local function visit(form)
    for _, value in pairs(form.state) do
      local items = type(value) == 'table' and (value.session and { value } or value) or {}
      for _, item in ipairs(items) do
        local child = type(item) == 'table' and root.children[tonumber(item.session)]
        if child and not reachable[child] then
          reachable[child] = true
          visit(child)
        end
      end
    end
  end
  visit(root)
  for _, child in pairs(root.children) do
    if not reachable[child] then child:forget() end
  end
end

-- A child session is gone: no more edits or commands go to it.
function Form:forget()
  self.closed = true
  edit.stop_timers(self)
  if daemon.sessions[self.session] == self then daemon.sessions[self.session] = nil end
  self.root.children[self.session] = nil
end

-- Applies a list member's splice ({ops, length}) to the state and queues its
-- ops for view.render, which then rewrites only the lines of the elements
-- inserted and deleted. Returns false when the splice does not fit our copy
-- of the list (the caller then asks for the whole state).
function Form:splice(name, splice)
  local list = self.state[name]
  local ops = type(splice) == 'table' and splice.ops
  if type(list) ~= 'table' or json.is_object(list) or type(ops) ~= 'table' then
    log.note(('session %d: the splices of %s do not apply to a value that is not a list; resynchronising')
      :format(self.session, name))
    return false
  end
  local new = list
  for _, op in ipairs(ops) do
    local at, delete, insert = op.at, op.delete or 0, op.insert or {}
    if type(at) ~= 'number' or type(delete) ~= 'number' or type(insert) ~= 'table'
      or json.is_object(insert) or at < 0 or delete < 0 or at + delete > #new then
      log.note(('session %d: the splices of %s do not apply to its %d elements; resynchronising')
        :format(self.session, name, #list))
      return false
    end
    local spliced = vim.list_slice(new, 1, at)
    vim.list_extend(spliced, insert)
    vim.list_extend(spliced, new, at + delete + 1)
    new = spliced
  end
  if #new ~= splice.length then
    log.note(('session %d: the splices of %s leave %d elements, the daemon says %s; resynchronising')
      :format(self.session, name, #new, tostring(splice.length)))
    return false
  end
  local field = self.fields[name]
  if field and field.writable then
    edit.remote(self, name, new) -- a one-line value: no lines to splice
    return true
  end
  self.state[name] = new
  local queued = self.splices[name] or {}
  vim.list_extend(queued, ops)
  self.splices[name] = queued
  return true
end

-- A revision was skipped (a lost message), or a splice did not fit: fetch
-- the whole state again.
function Form:resync()
  self.conn:request('session/state', { session = self.session }, function(err, result)
    if err or self.closed or self.dead then return end
    self.revision = result.revision
    for name, value in pairs(result.state) do self:take(name, value, result.display) end
    self:adopt(result.children)
    self.root:prune()
    view.render(self.root)
  end)
end

-- A whole value the daemon sent for a member (so nothing to splice), with the message's
-- display: a writable field goes through edit.remote, which keeps what the person is
-- typing; anything else is stored.
function Form:take(name, value, display)
  local field = self.fields[name]
  self.splices[name] = nil
  -- The message's text for it, or none (a string, a list, a child).
  self.display[name] = type(display) == 'table' and display[name] or nil
  if field and field.writable then
    edit.remote(self, name, value)
  else
    self.state[name] = value
  end
end

-- The daemon went away: say so, keep the last values, allow no edits.
function Form:die(why)
  if self.closed or self.dead then return end
  self.dead = why
  if self.root ~= self then -- drawn (dead) by its root
    edit.stop_timers(self)
    self.pending = {}
    return
  end
  for _, child in pairs(self.children) do child:die(why) end
  edit.stop_timers(self)
  self.pending = {}
  view.render(self, true)
  api.nvim_buf_clear_namespace(self.buf, view.spin_ns, 0, -1)
  view.stop_spinner(self)
end

-- Ends the session (the buffer is being wiped, or :BinderyClose).
function Form:close()
  if self.closed then return end
  if self.root ~= self then return end -- a child closes with its root
  for _, child in pairs(self.children) do child:forget() end
  self.closed = true
  edit.stop_timers(self)
  view.stop_spinner(self)
  if daemon.sessions[self.session] == self then daemon.sessions[self.session] = nil end
  daemon.buffers[self.buf] = nil
  if not self.dead and not self.conn.closed then
    self.conn:request('session/close', { session = self.session }, function() end)
  end
  if api.nvim_buf_is_valid(self.buf) then
    vim.diagnostic.reset(view.diag_ns, self.buf)
  end
end

return M
