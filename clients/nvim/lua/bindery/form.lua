-- A form: one session of a view model type, shown in one buffer. Holds the
-- session's state as the daemon last said it, plus what the person typed.
local actions = require('bindery.actions')
local daemon = require('bindery.daemon')
local edit = require('bindery.edit')
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

-- One session's part of a form: its schema, its record in the connection's
-- mirror (type, revision, state, display: lua/bindery/mirror.lua) and what
-- was typed. The root (the session opened) owns the buffer; its child
-- sessions are drawn in that buffer too, each a Form of its own (root = the
-- buffer's form).
-- The session's record in the mirror: its state (member -> value, changed
-- in place) and display (member -> the daemon's text); each writable field's
-- line shows its value.
local function take(self, record)
  self.record, self.state, self.display = record, record.state, record.display
  for name, field in pairs(self.fields) do
    if field.writable then
      self.text[name] = text.editable(self, field)
      self.sent[name] = self.text[name]
    end
  end
end

local function session_form(conn, schema, session, record)
  local self = setmetatable({
    conn = conn, schema = schema, type = schema.type, session = session,
    fields = {},     -- name -> field schema
    text = {},       -- writable field -> text shown (the buffer's, once typed)
    sent = {},       -- writable field -> text last sent or received
    stale = {},      -- fields the daemon changed while the person typed in them
    timers = {},     -- field -> pause timer of a write
    errors = {},     -- field -> message, shown as a diagnostic
    pending = {},    -- command -> id of its unanswered invoke
    results = {},    -- command -> {ok, value | message}
    splices = {},    -- list member -> splice ops applied to state, not yet drawn
    history = {},    -- id of an unanswered session/undo or redo -> whether it changed anything
  }, Form)
  for _, field in ipairs(schema.fields) do self.fields[field.name] = field end
  take(self, record)
  return self
end

-- result: session/open's {session, revision, state, children}; key and
-- args as opened (a keyed form is reopened after a shared daemon died).
function M.new(conn, schema, result, key, args)
  local self = session_form(conn, schema, result.session, conn.mirror:hold(result.session, result))
  self.key, self.args = key, args
  self.root = self
  self.children = {}    -- session id -> child Form, every descendant
  self.child_schemas = collect(schema)
  self.damaged, self.spin = {}, 0
  daemon.sessions[self.session] = self
  self:adopt(conn.mirror:hold_children(result.children))

  local buf = api.nvim_create_buf(true, true)
  self.buf = buf
  api.nvim_buf_set_name(buf, buffer_name(self))
  vim.bo[buf].bufhidden = 'hide'
  -- Every value is live in the daemon; undoing would replay stale renders.
  vim.bo[buf].undolevels = -1
  vim.bo[buf].filetype = 'bindery'
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

-- A didChange for this session, folded by the mirror, then drawn.
function Form:apply(params)
  if self.closed or self.dead or self.root.closed then return end
  local fold = self.conn.mirror:did_change(params)
  if not fold then return end -- out of step: waiting for session/state
  local cause = type(params.cause) == 'number' and params.cause or nil
  if cause and self.history[cause] ~= nil then self.history[cause] = true end
  if fold.out_of_step then
    log.note(('session %d: %s; resynchronising'):format(self.session, fold.why))
    return self:resync()
  end
  for name in pairs(fold.changed) do self:took(name) end
  for name, ops in pairs(fold.spliced) do self:spliced(name, ops) end
  self:adopt(fold.children)
  self:detach(fold.detached)
  view.render(self.root)
end

-- Child sessions the mirror holds anew (id -> record), from a didChange's
-- `children` or all of them again (session/open, session/state): new ones
-- become Forms drawn in the root's buffer and told their own didChange.
function Form:adopt(records)
  local root = self.root
  for id, record in pairs(records or {}) do
    local child = root.children[id]
    if child then -- the same record, refilled: its fields' lines follow
      child:took_all()
    else
      local schema = root.child_schemas[record.type] or daemon.schemas[record.type]
        or { type = tostring(record.type), fields = {}, commands = {} }
      child = session_form(self.conn, schema, id, record)
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

-- A child session is gone (or the root, closing): no more edits or commands go to it.
function Form:forget()
  self.closed = true
  edit.stop_timers(self)
  if daemon.sessions[self.session] == self then daemon.sessions[self.session] = nil end
  self.root.children[self.session] = nil
  self.conn.mirror:drop(self.session)
end

-- A list member the mirror spliced: its ops are queued for view.render,
-- which then rewrites only the lines of the elements inserted and deleted.
function Form:spliced(name, ops)
  local field = self.fields[name]
  if field and field.writable then return self:took(name) end -- a one-line value: no lines to splice
  local queued = self.splices[name] or {}
  vim.list_extend(queued, ops)
  self.splices[name] = queued
end

-- A member the mirror took whole (so nothing to splice). A writable field
-- goes through edit.remote, which keeps what the person is typing; while a
-- write of it is unanswered the line shows what was written (protocol.md,
-- "Client mirror"), and the answer settles it (edit.send).
function Form:took(name)
  local field = self.fields[name]
  self.splices[name] = nil
  if field and field.writable and not self.conn.mirror:writing(self.session, name) then
    edit.remote(self, name)
  end
end

function Form:took_all()
  self.splices = {}
  for name in pairs(self.state) do self:took(name) end
end

-- A revision was skipped (a lost message), or a splice did not fit: the
-- mirror holds the whole state again.
function Form:resync()
  local conn, mirror = self.conn, self.conn.mirror
  mirror.resync[self.session] = true -- what comes meanwhile is ignored
  conn:request('session/state', { session = self.session }, function(err, result)
    if err or self.closed or self.dead or conn ~= self.conn then return end
    mirror:hold(self.session, result)
    self:took_all()
    self:adopt(mirror:hold_children(result.children))
    self.root:prune()
    view.render(self.root)
  end)
end

-- The daemon went away: say so (or say it again, differently: reconnecting),
-- keep the last values, allow no edits.
function Form:die(why)
  if self.closed then return end
  self.dead = why
  edit.stop_timers(self)
  self.pending = {}
  if self.root ~= self then return end -- drawn (dead) by its root
  for _, child in pairs(self.children) do child:die(why) end
  view.render(self, true)
  api.nvim_buf_clear_namespace(self.buf, view.spin_ns, 0, -1)
  view.stop_spinner(self)
end

-- The keyed session reopened on a new connection (reconnect.lua): the form,
-- in the same buffer, takes its new id, revision, state and children, and
-- works again.
function Form:reattach(conn, result)
  for _, child in pairs(self.children) do child:forget() end
  self.conn, self.session, self.dead = conn, result.session, nil
  self.errors, self.stale, self.splices, self.history = {}, {}, {}, {}
  take(self, conn.mirror:hold(result.session, result))
  daemon.sessions[self.session] = self
  self:adopt(conn.mirror:hold_children(result.children))
  view.render(self, true)
end

-- Ends the session (the buffer is being wiped, or :BinderyClose).
function Form:close()
  if self.closed then return end
  if self.root ~= self then return end -- a child closes with its root
  for _, child in pairs(self.children) do child:forget() end
  self:forget()
  view.stop_spinner(self)
  daemon.buffers[self.buf] = nil
  if not self.dead and not self.conn.closed then
    self.conn:request('session/close', { session = self.session }, function() end)
  end
  if api.nvim_buf_is_valid(self.buf) then
    vim.diagnostic.reset(view.diag_ns, self.buf)
  end
end

return M
