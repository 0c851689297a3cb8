-- What keys do in a form: <CR>/<Space> press a button, toggle a boolean or
-- pick an enum case; <C-c> cancels a running command; cc/S change a value
-- without touching its label; u and <C-r> undo and redo in the daemon.
local edit = require('bindery.edit')
local layout = require('bindery.layout')
local text_of = require('bindery.text')
local ui = require('bindery.ui')
local view = require('bindery.view')

local api = vim.api
local M = {}

local function alive(form)
  if form.dead then
    ui.warn(form.dead)
    return false
  end
  if form.closed and form.root ~= form then
    ui.warn('this row is gone')
  end
  return not form.closed
end

-- params: {args = a row's value} or {text = what the person typed}, or {}.
local function send_invoke(form, command, params)
  form.results[command.name] = nil
  params.session, params.command = form.session, command.name
  local id
  id = form.conn:request('invoke', params, function(err, result)
    if form.pending[command.name] == id then form.pending[command.name] = nil end
    if form.closed or form.dead then return end
    if err then
      form.results[command.name] = { ok = false, message = text_of.refusal(err) }
    else
      form.results[command.name] = { ok = true, value = result.result }
    end
    view.render(form)
  end)
  form.pending[command.name] = id
  view.render(form)
end

-- Invokes a command; args: its argument (a row's value), else typed by the
-- person when it takes one (sent as text for the daemon to read).
function M.invoke(form, command, args)
  if not alive(form) then return end
  -- Writes still waiting for their pause go first: the command must see them.
  edit.flush_and_wait(form)
  if form.pending[command.name] then
    ui.warn(command.label .. ' is running (<C-c> cancels it)')
    return
  end
  if form.state[command.name .. '.enabled'] == false then
    ui.warn(command.label .. ' is disabled')
    return
  end
  if args ~= nil or not command.args then return send_invoke(form, command, { args = args }) end
  local hint = command.args.typeName or command.args.type
  if command.args.type == 'object' then hint = hint .. '; or <CR> on a row' end
  vim.ui.input({ prompt = command.label .. ' (' .. hint .. '): ' }, function(input)
    if not input or form.closed or form.dead then return end
    send_invoke(form, command, { text = input })
  end)
end

-- <CR> on a row's line: the button under the cursor among spans, the only
-- one, or one picked; run(command) presses it.
local function press(form, spans, run)
  local col = api.nvim_win_get_cursor(0)[2]
  for _, span in ipairs(spans) do
    if col >= span.from and col < span.to then return run(span.command) end
  end
  if #spans == 1 then return run(spans[1].command) end
  if #spans == 0 then return ui.warn('this row has no buttons') end
  vim.ui.select(vim.tbl_map(function(span) return span.command end, spans), {
    prompt = 'Row:', format_item = function(command) return command.label end,
  }, function(command)
    if command and alive(form) then run(command) end
  end)
end

-- <CR> on an element of a list with row buttons: the element is the argument.
local function press_row(form, block)
  local offset = api.nvim_win_get_cursor(0)[1] - 1 - block.start
  local item = offset >= 1 and (form.state[block.field.name] or {})[offset]
  if item == nil then return false end
  local _, spans = layout.buttons(block.row_commands, #block.indent + 4) -- after "  - "
  press(form, spans, function(command) M.invoke(form, command, item) end)
  return true
end

function M.activate(form)
  if not alive(form) then return end
  view.render(form)
  local block = view.current_block(form)
  if not block then return end
  -- The session the block shows: the form's own, or a child's drawn in it.
  form = block.owner or form
  if not alive(form) then return end
  if block.row then return press(form, block.spans, function(command) M.invoke(form, command) end) end
  if block.command then return M.invoke(form, block.command) end
  local field = block.field
  if not field then return end
  if block.row_commands and press_row(form, block) then return end
  if not field.writable then
    ui.warn(field.label .. ' is read-only')
  elseif field.type == 'boolean' then
    -- What the box shows: the last value written while a write of it is unanswered.
    edit.set(form, field.name, form.conn.mirror:shown(form.session, field.name) == true and '[ ]' or '[x]')
  elseif field.type == 'enum' then
    local items = vim.list_extend({}, field.cases or {})
    if field.nullable then items[#items + 1] = '' end -- empty text sends null
    vim.ui.select(items, {
      prompt = field.label .. ':',
      format_item = function(item) return item == '' and '(none)' or item end,
    }, function(choice)
      if choice and alive(form) then edit.set(form, field.name, choice) end
    end)
  else
    vim.cmd('startinsert!')
  end
end

-- Cancels the command under the cursor, or else the one running.
function M.cancel(form)
  if not alive(form) then return end
  local block = view.current_block(form)
  if block and block.owner and block.owner ~= form and next(block.owner.pending) then
    form = block.owner -- a child's command runs: cancel that one
  end
  local name = block and block.command and form.pending[block.command.name] and block.command.name
  if not name then name = next(form.pending) end
  if not name then
    ui.warn('no command of this form is running')
    return
  end
  form.conn:notify('$/cancelRequest', { id = form.pending[name] })
  for _, command in ipairs(form.schema.commands) do
    if command.name == name then ui.info('cancelling ' .. command.label) end
  end
end

-- cc / S: empty the value under the cursor and type a new one.
function M.change(form)
  if not alive(form) then return end
  view.render(form)
  local block = view.current_block(form)
  if not (block and block.writable) then
    ui.warn((block and block.field and block.field.label .. ' is read-only') or 'only values can be changed')
    return
  end
  api.nvim_buf_set_lines(form.buf, block.start, block.start + 1, false, { block.prefix .. ' ' })
  vim.cmd('startinsert!')
end

local nothing = { ['session/undo'] = 'nothing to undo', ['session/redo'] = 'nothing to redo' }

-- u / <C-r>: session/undo or session/redo. The daemon's history is the one
-- undo of a form (its buffer keeps none): a step is a burst of typing in one
-- field. The form follows from the didChange the request causes; the answer
-- says whether anything is left to undo or redo.
function M.history(form, method)
  if not alive(form) then return end
  local block = view.current_block(form)
  if block and block.owner then form = block.owner end -- a child's own history
  if not alive(form) then return end
  -- What was typed and not sent yet is a step of its own: send it first.
  view.render(form)
  edit.flush(form)
  local id
  id = form.conn:request(method, { session = form.session }, function(err, result)
    local changed = form.history[id]
    form.history[id] = nil
    if form.closed or form.dead then return end
    if err then return ui.error(method .. ': ' .. err.message) end
    local left = result.canRedo
    if method == 'session/undo' then left = result.canUndo end
    if not changed and left ~= true then ui.info(nothing[method]) end
  end)
  -- Form:apply marks it true when a didChange it caused comes (before this answer).
  form.history[id] = false
end

function M.attach(form)
  local function map(mode, lhs, rhs)
    vim.keymap.set(mode, lhs, rhs, { buffer = form.buf, silent = true, nowait = true })
  end
  map('n', '<CR>', function() M.activate(form) end)
  map('n', '<Space>', function() M.activate(form) end)
  map('n', '<C-c>', function() M.cancel(form) end)
  map('n', 'cc', function() M.change(form) end)
  map('n', 'S', function() M.change(form) end)
  map('n', 'u', function() M.history(form, 'session/undo') end)
  -- U would bring back a line as Vim last saw it, behind the daemon's back.
  map('n', 'U', function() M.history(form, 'session/undo') end)
  map('n', '<C-r>', function() M.history(form, 'session/redo') end)
  -- A value is one line: Enter ends the edit instead of splitting the form.
  map('i', '<CR>', '<Esc>')
end

return M
