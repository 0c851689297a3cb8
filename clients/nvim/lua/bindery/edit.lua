-- Editing fields in place. The buffer is read after every change (on_lines,
-- then a scheduled scan): text typed after a writable field's label becomes
-- its value and is sent with setField after a short pause; anything else (a
-- read-only line touched, lines added, removed or joined, a label damaged)
-- is undone by re-rendering the form.
local compat = require('bindery.compat')
local text_of = require('bindery.text')
local settings = require('bindery.settings')
local ui = require('bindery.ui')

local api = vim.api
local M = {}

local function view() return require('bindery.view') end

local function inserting(form)
  local mode = api.nvim_get_mode().mode:sub(1, 1)
  return (mode == 'i' or mode == 'R') and api.nvim_get_current_buf() == (form.root or form).buf
end

-- Whether the person is at work in a field: a write of it is waiting for
-- the pause, or the cursor is in it in Insert mode. Its line is theirs then.
function M.busy(form, name)
  if form.timers[name] then return true end
  if not inserting(form) then return false end
  local block = view().current_block(form)
  return block ~= nil and block.field ~= nil and block.field.name == name and (block.owner or form) == form
end

local function stop_timer(form, name)
  local timer = form.timers[name]
  if timer then
    timer:stop()
    timer:close()
    form.timers[name] = nil
  end
end

function M.stop_timers(form)
  for name in pairs(form.timers) do stop_timer(form, name) end
end

-- A field's text changed in the buffer: send it once typing pauses.
local function edited(form, name)
  local timer = form.timers[name]
  if not timer then
    timer = compat.uv.new_timer()
    form.timers[name] = timer
  end
  timer:stop()
  timer:start(settings.current('debounce_ms'), 0, vim.schedule_wrap(function()
    if form.timers[name] == timer then M.send(form, name) end
  end))
end

-- Compares the buffer with the blocks last put there. Returns 'ok', 'defer'
-- (a label is damaged in Insert mode: wait until the person leaves it) or
-- 'broken' (the form must be rewritten), after saying why.
function M.scan(form)
  form = form.root or form
  form.damaged = {}
  if not form.blocks or form.dead then return 'ok' end
  local current = api.nvim_buf_get_lines(form.buf, 0, -1, false)
  local total = 0
  for _, block in ipairs(form.blocks) do total = total + #block.lines end
  if #current ~= total then
    ui.warn('lines cannot be added to or removed from a form; restored')
    return 'broken'
  end
  local status = 'ok'
  for _, block in ipairs(form.blocks) do
    local have = vim.list_slice(current, block.start + 1, block.start + #block.lines)
    if not vim.deep_equal(have, block.lines) then
      local field = block.field
      local owner = block.owner or form
      if block.writable and vim.startswith(have[1], block.prefix) then
        block.lines = have
        -- A NUL typed with <C-v> reads as "\n": keep it as the escape a
        -- line break in a value is shown as, never a raw newline.
        local text = have[1]:sub(#block.prefix + 1):gsub('^ ', ''):gsub('\n', '\\n')
        if text ~= owner.text[field.name] then
          owner.text[field.name] = text
          edited(owner, field.name)
        end
      elseif block.writable and inserting(form) then
        form.damaged[block.key] = true
        status = 'defer'
      elseif block.writable then
        ui.warn(('the label "%s" cannot be edited; restored'):format(field.label))
        return 'broken'
      else
        ui.warn((field and field.label .. ' is read-only' or 'this line cannot be edited') .. '; undone')
        return 'broken'
      end
    end
  end
  return status
end

-- Resolves fields the daemon changed while the person was typing in them
-- (in the form and the child sessions drawn with it).
function M.settle(form)
  local changed = false
  for _, session in ipairs(view().sessions(form)) do
    for name in pairs(session.stale) do
      if not M.busy(session, name) then
        session.stale[name] = nil
        session.text[name] = text_of.editable(session, session.fields[name])
        changed = true
      end
    end
  end
  if changed then view().render(form) end
end

-- Sends a field's text now (if it changed since last sent): the daemon reads
-- it; text it cannot read is refused with what it expected, shown beside the
-- line, which keeps the person's text to fix.
function M.send(form, name)
  stop_timer(form, name)
  if form.closed or form.dead then return end
  local text = form.text[name]
  if text ~= form.sent[name] then
    local field = form.fields[name]
    form.sent[name] = text
    local params = text_of.params(field, text)
    -- The value written, when it is known: a checkbox's, and a plain string's (the text itself,
    -- protocol.md "Display and text"); other text is the daemon's to read.
    local value = params.value
    if params.text and field.type == 'string' and not field.format then
      value = (params.text == '' and field.nullable) and vim.NIL or params.text
    end
    params.session, params.field = form.session, name
    local conn, id = form.conn, nil
    id = conn:request('setField', params, function(err, result)
      local write = conn.mirror:answered(id, err, result)
      if form.closed or form.dead or conn ~= form.conn then return end
      if write and write.out_of_step then form:resync() end
      -- A later write of the field waits for its answer: that answer says how it stands.
      if conn.mirror:writing(form.session, name) then return end
      form.errors[name] = err and text_of.refusal(err) or nil
      -- The model stored something other than what was written: the line shows it (protocol.md,
      -- "Client mirror").
      if not err and write and write.told then
        M.remote(form, name)
        view().render(form)
      end
      view().decorate(form)
    end)
    conn.mirror:sent(id, form.session, name, value)
    view().decorate(form)
  end
  M.settle(form)
end

-- Sends every write still waiting for its pause (before a command runs, on
-- leaving Insert mode or the buffer): the last keystroke is never lost.
function M.flush(form)
  for _, session in ipairs(view().sessions(form)) do
    for name in pairs(session.timers) do M.send(session, name) end
  end
end

-- Flushes, then waits (briefly) for the answers, so that what the writes
-- caused (a command becoming enabled) is known before acting on it.
function M.flush_and_wait(form)
  M.flush(form)
  local mirror = form.conn.mirror -- answered in order: the connection's last writes are these
  vim.wait(5000, function() return #mirror.pending == 0 end, 5)
end

-- Sets a field from an action (toggle, pick) and sends it at once.
function M.set(form, name, text)
  view().render(form)
  form.text[name] = text
  view().render(form)
  M.send(form, name)
end

-- The daemon changed a writable field (another client, or the model stored
-- something other than what was written): the mirror holds its value.
function M.remote(form, name)
  form.sent[name] = text_of.editable(form, form.fields[name])
  if M.busy(form, name) then
    form.stale[name] = true
  else
    form.stale[name] = nil
    form.text[name] = form.sent[name]
  end
end

function M.attach(form)
  if form.attached then return end
  form.attached = api.nvim_buf_attach(form.buf, false, {
    on_lines = function()
      if form.closed then return true end
      if form.rendering or form.scan_queued then return end
      -- No buffer changes allowed in here (textlock): look after this.
      form.scan_queued = true
      vim.schedule(function()
        form.scan_queued = false
        view().render(form)
      end)
    end,
    on_detach = function() form.attached = false end,
  })
end

return M
