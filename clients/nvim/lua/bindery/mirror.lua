-- The plugin's mirror of what the daemon told it (protocol.md, "Client
-- mirror"): per session its type, revision, state and display; the setFields
-- sent and not answered yet (pending writes); the sessions out of step. It
-- folds didChange and setField's answers and says what changed, for the
-- forms to draw; it touches no buffer. One per connection (conn.mirror).
-- Tests/ClientMirror's corpus drives it directly (test/spec/17_mirror_spec.lua).
local compat = require('bindery.compat')

local M = {}

local Mirror = {}
Mirror.__index = Mirror

-- Whether v is a list (a JSON array): vim.json decodes {} as vim.empty_dict().
local function is_list(v)
  return type(v) == 'table' and compat.islist(v)
end

function M.new()
  return setmetatable({
    sessions = {}, -- session id (a number) -> {type, revision, state, display}
    pending = {},  -- unanswered setFields, in the order sent: {id, session, field, value, told}
    resync = {},   -- session id -> true while out of step (waiting for session/state)
  }, Mirror)
end

-- The list `splice` ({ops, length}) makes of `list`, each op on the result of
-- the one before; or nil and why when it does not fit (words that follow
-- "the splices of <member>"). A long insert is
-- copied element by element, never spread into a call's arguments.
function M.splice(list, splice)
  if not is_list(list) then return nil, 'do not apply to a value that is not a list' end
  local ops = type(splice) == 'table' and splice.ops
  if not is_list(ops) then return nil, 'have no ops' end
  local result = list
  for _, op in ipairs(ops) do
    local at, delete, insert = op.at, op.delete or 0, op.insert or {}
    if type(at) ~= 'number' or type(delete) ~= 'number' or not is_list(insert)
      or at < 0 or delete < 0 or at + delete > #result then
      return nil, ('do not apply to its %d elements'):format(#list)
    end
    local spliced = {}
    for i = 1, at do spliced[i] = result[i] end
    local n = at
    for i = 1, #insert do spliced[n + i] = insert[i] end
    n = n + #insert
    for i = at + delete + 1, #result do
      n = n + 1
      spliced[n] = result[i]
    end
    result = spliced
  end
  if #result ~= splice.length then
    return nil, ('leave %d elements, the daemon says %s'):format(#result, tostring(splice.length))
  end
  return result
end

-- Empties t and fills it with the members of from (a form keeps a reference
-- to its session's state and display tables, so they are changed in place).
local function refill(t, from)
  for k in pairs(t) do t[k] = nil end
  if type(from) == 'table' then
    for k, v in pairs(from) do t[k] = v end
  end
end

-- Holds a session as a session/open or session/state answer, or a
-- `children` entry, gives it ({type, revision, state, display}): taken
-- whole, and in step. Returns its record (the same table for a session
-- already held).
function Mirror:hold(id, entry)
  id = tonumber(id)
  local record = self.sessions[id]
  if not record then
    record = { state = {}, display = {} }
    self.sessions[id] = record
  end
  record.type = entry.type or record.type
  record.revision = tonumber(entry.revision) or 0
  refill(record.state, entry.state)
  refill(record.display, entry.display)
  self.resync[id] = nil
  return record
end

-- Holds each entry of a `children` object ({"<id>": {type, revision, state,
-- display}}); returns id -> record.
function Mirror:hold_children(children)
  local records = {}
  for child, entry in pairs(type(children) == 'table' and children or {}) do
    if type(entry) == 'table' then records[tonumber(child)] = self:hold(child, entry) end
  end
  return records
end

-- Forgets a session (closed, detached, its form gone).
function Mirror:drop(id)
  id = tonumber(id)
  self.sessions[id], self.resync[id] = nil, nil
end

-- A setField was sent: request id, session, field, and the value written
-- when it is known (a checkbox's value, a plain string's text); nil when the
-- daemon reads it from text (then only a didChange can say what it stored).
function Mirror:sent(id, session, field, value)
  self.pending[#self.pending + 1] = { id = id, session = tonumber(session), field = field, value = value, told = false }
end

-- Whether a write to session's field is unanswered.
function Mirror:writing(session, field)
  session = tonumber(session)
  for _, writer in ipairs(self.pending) do
    if writer.session == session and writer.field == field then return true end
  end
  return false
end

-- What a face shows for session's field: the last value written while a
-- write is pending (what the person typed), else the state's.
function Mirror:shown(session, field)
  session = tonumber(session)
  local record = self.sessions[session]
  local value = record and record.state[field]
  for _, writer in ipairs(self.pending) do
    if writer.session == session and writer.field == field and writer.value ~= nil then value = writer.value end
  end
  return value
end

local function out_of_step(self, id, fold, why)
  self.resync[id] = true
  fold.out_of_step, fold.why = true, why
  return fold
end

-- Folds a didChange's params. Returns nil when it is ignored (a session not
-- held, or out of step), else what it did: {session, changed = {name = true},
-- spliced = {name = ops}, children = {id = record}, detached = {id, ...},
-- out_of_step = true and why when the session must be fetched again}.
function Mirror:did_change(params)
  local id = tonumber(params.session)
  local record = id and self.sessions[id]
  if not record or self.resync[id] then return nil end
  local fold = { session = id, changed = {}, spliced = {}, children = {}, detached = {} }
  local revision = tonumber(params.revision)
  if revision ~= record.revision + 1 then
    return out_of_step(self, id, fold, ('revision %s after %d'):format(tostring(params.revision), record.revision))
  end
  local writer
  for _, w in ipairs(self.pending) do
    if w.id == params.cause and w.session == id then writer = w end
  end
  local display = type(params.display) == 'table' and params.display or {}
  for name, value in pairs(type(params.changes) == 'table' and params.changes or {}) do
    record.state[name] = value
    -- The message's text for it, or none: a value now a string has no display.
    record.display[name] = display[name]
    fold.changed[name] = true
    if writer and writer.field == name then writer.told = true end
  end
  for name, splice in pairs(type(params.splices) == 'table' and params.splices or {}) do
    -- A splice of a field this client's write caused applies to the value written.
    local own = writer ~= nil and writer.field == name and writer.value ~= nil
    local base = own and writer.value or record.state[name]
    local list, why = nil, 'do not apply to a member not held'
    if base ~= nil then list, why = M.splice(base, splice) end
    if not list then
      return out_of_step(self, id, fold, ('the splices of %s %s'):format(name, why))
    end
    record.state[name] = list
    fold.spliced[name] = splice.ops
    if writer and writer.field == name then writer.told = true end
  end
  for name, text in pairs(display) do record.display[name] = text end
  fold.children = self:hold_children(params.children)
  for _, child in ipairs(type(params.detached) == 'table' and params.detached or {}) do
    self:drop(child)
    fold.detached[#fold.detached + 1] = tonumber(child)
  end
  record.revision = revision
  return fold
end

-- Folds the answer of a request (err or result). Returns nil for a request
-- that is not a pending write, else the write ({id, session, field, value,
-- told}), with out_of_step = true when the answer names a revision the
-- session has not reached (the write's didChange was lost).
function Mirror:answered(id, err, result)
  local writer
  for i, w in ipairs(self.pending) do
    if w.id == id then
      writer = table.remove(self.pending, i)
      break
    end
  end
  if not writer then return nil end
  local record = self.sessions[writer.session]
  if err or not record or self.resync[writer.session] then return writer end -- a refused write changed nothing
  -- No echo: the field holds what was written, unless the write's own
  -- didChange said the model stored something else.
  if not writer.told and writer.value ~= nil and record.state[writer.field] ~= nil then
    record.state[writer.field] = writer.value
    record.display[writer.field] = nil -- its text is the daemon's, and it sent none
  end
  local revision = type(result) == 'table' and tonumber(result.revision)
  if revision and revision > record.revision then
    self.resync[writer.session] = true
    writer.out_of_step = true
  end
  return writer
end

-- Folds a message as the daemon wrote it (a didChange, or a response).
function Mirror:receive(message)
  if message.method == 'didChange' then return self:did_change(message.params) end
  if message.id ~= nil and message.method == nil then
    local err = message.error
    if err == vim.NIL then err = nil end
    return self:answered(message.id, err, message.result)
  end
end

return M
