-- What a form shows, as blocks of lines: the title, one block per member in
-- schema order ("Label: value", continuation lines indented under the value),
-- then one block per command (the button and, under it, its last result).
-- A child view model (protocol.md, "Child view models") is a heading with
-- its own members and buttons indented under it; a list of child rows is a
-- heading, then per row a line with the row's buttons and outputs and, under
-- it, the row's writable fields. Every block names its owner: the session
-- (root or child Form) whose member or command it shows.
-- Pure: reads the forms' state, touches no buffer.
local text = require('bindery.text')

local M = {}

M.spinner = { '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏' }

local function rstrip(s)
  return (s:gsub('%s+$', ''))
end

function M.title(form)
  return '== ' .. form.type .. (form.key and (' (' .. form.key .. ')') or '') .. ' =='
end

-- The commands that take one element of a field's list as their argument
-- (todoList's toggle takes a TodoItem): a button on each of its rows.
function M.row_commands(form, field)
  local items = field.type == 'array' and field.items
  if not (items and items.type == 'object') then return nil end
  local found = {}
  for _, command in ipairs(form.schema.commands) do
    local args = command.args
    if args and args.type == 'object' and args.typeName ~= nil and args.typeName == items.typeName then
      found[#found + 1] = command
    end
  end
  return #found > 0 and found or nil
end

-- The buttons of commands from byte column col on: their text ("[ A ] [ B ] ")
-- and spans {command, from, to} (byte columns, 0-based, end exclusive).
function M.buttons(commands, col)
  local line, spans = '', {}
  for _, command in ipairs(commands or {}) do
    local label = '[ ' .. command.label .. ' ]'
    spans[#spans + 1] = { command = command, from = col + #line, to = col + #line + #label }
    line = line .. label .. ' '
  end
  return line, spans
end

-- The line showing one element of a list block (block.list: its field's
-- items, its row_commands), with a button per command that takes the element
-- (M.buttons from column 4: after "  - ").
function M.item_line(item, block)
  return rstrip(block.indent .. '  - ' .. M.buttons(block.row_commands, 0) .. text.inline(item, block.field.items))
end

local function field_block(form, field, indent)
  local prefix = indent .. field.label .. ': '
  local block = {
    key = form.session .. ':field:' .. field.name, owner = form, indent = indent,
    field = field, writable = field.writable, prefix = indent .. field.label .. ':',
  }
  if field.writable then
    block.lines = { prefix .. (form.text[field.name] or '') }
    return block
  end
  local value = form.state[field.name]
  if text.is_list(value) then
    -- One line per element after the label line: list splices edit these.
    block.list, block.row_commands = true, M.row_commands(form, field)
    block.lines = { rstrip(prefix .. (#value == 0 and '(none)' or '')) }
    for i, item in ipairs(value) do block.lines[i + 1] = M.item_line(item, block) end
    return block
  end
  -- The daemon's text (a string's lines aligned under the first).
  local shown = text.lines(form, field.name)
  local under = (' '):rep(vim.fn.strdisplaywidth(prefix))
  block.lines = { rstrip(prefix .. shown[1]) }
  for i = 2, #shown do
    block.lines[i] = rstrip(under .. shown[i])
  end
  return block
end

-- Whether a command runs: the daemon says so, or our invoke has not answered.
function M.running(form, command)
  if form.dead or form.closed then return false end
  return form.state[command.name .. '.running'] == true
    or (command.async and form.pending[command.name] ~= nil)
end

local function command_block(form, command, indent)
  local running = M.running(form, command)
  local block = {
    key = form.session .. ':command:' .. command.name, owner = form, indent = indent,
    command = command,
    running = running,
    enabled = form.state[command.name .. '.enabled'] ~= false,
    lines = { indent .. '[ ' .. command.label .. ' ]' .. (running and ' running…' or '') },
  }
  local result = form.results[command.name]
  if result and not running then
    local lines = result.ok and text.result_lines(result.value, command.result) or vim.split(result.message, '\n', { plain = true })
    if result.ok and (result.value == nil or result.value == vim.NIL) then lines = { 'done' } end
    if lines[1] == '' then table.remove(lines, 1) end
    for i, line in ipairs(lines) do
      block.lines[#block.lines + 1] = rstrip(indent .. (i == 1 and (result.ok and '  → ' or '  ✗ ') or '    ') .. vim.trim(line))
    end
    block.result_ok = result.ok
  end
  return block
end

-- Whether a type object is a child view model, or a list of them.
function M.is_child(t)
  return type(t) == 'table' and t.type == 'viewModel'
end

function M.is_rows(field)
  return field.type == 'array' and M.is_child(field.items)
end

-- The child Form a value {"session": id} stands for, and its id.
local function child_of(root, value)
  local id = type(value) == 'table' and tonumber(value.session) or nil
  return id and root.children[id] or nil, id
end

local members

-- A child row: one line with its buttons (spans: byte columns) and its
-- outputs, then its writable fields (and any children) indented under it.
local function row_blocks(root, row, blocks, indent)
  local buttons, spans = M.buttons(row.schema.commands, #indent + 2)
  local line, running = indent .. '- ' .. buttons, false
  for _, span in ipairs(spans) do
    span.enabled = row.state[span.command.name .. '.enabled'] ~= false
    running = running or M.running(row, span.command)
  end
  local parts = {}
  for _, field in ipairs(row.schema.fields) do
    if not field.writable and not M.is_child(field) and not M.is_rows(field) then
      parts[#parts + 1] = field.label .. ': ' .. (text.is_list(row.state[field.name])
        and text.inline(row.state[field.name], field) or text.lines(row, field.name)[1])
    end
  end
  line = line .. table.concat(parts, ' · ')
  for _, command in ipairs(row.schema.commands) do
    local result = row.results[command.name]
    if result and not result.ok then line = line .. '  ✗ ' .. result.message:gsub('\n.*', '') end
  end
  blocks[#blocks + 1] = { key = row.session .. ':row', owner = row, row = true, indent = indent,
    spans = spans, running = running, lines = { rstrip(line) } }
  members(root, row, blocks, indent .. '  ', true)
end

-- A member holding a child: a heading, the child's members under it.
local function child_section(root, form, field, blocks, indent)
  local child, id = child_of(root, form.state[field.name])
  local note = id == nil and ' (none)' or (child == nil and ' (session ' .. id .. ')' or '')
  blocks[#blocks + 1] = { key = form.session .. ':child:' .. field.name, owner = form, heading = true,
    indent = indent, lines = { indent .. field.label .. ':' .. note } }
  if child then members(root, child, blocks, indent .. '  ') end
end

-- A member holding rows: a heading, then each row.
local function rows_section(root, form, field, blocks, indent)
  local list = form.state[field.name]
  list = type(list) == 'table' and list or {}
  blocks[#blocks + 1] = { key = form.session .. ':rows:' .. field.name, owner = form, heading = true,
    indent = indent, lines = { indent .. field.label .. ':' .. (#list == 0 and ' (none)' or '') } }
  for _, item in ipairs(list) do
    local row = child_of(root, item)
    if row then row_blocks(root, row, blocks, indent .. '  ') end
  end
end

-- The blocks of one session's members, then of its commands (a row's
-- commands are its line's buttons: in_row leaves them and its outputs out).
members = function(root, form, blocks, indent, in_row)
  for _, field in ipairs(form.schema.fields) do
    if M.is_child(field) then
      child_section(root, form, field, blocks, indent)
    elseif M.is_rows(field) then
      rows_section(root, form, field, blocks, indent)
    elseif not in_row or field.writable then
      blocks[#blocks + 1] = field_block(form, field, indent)
    end
  end
  if in_row then return end
  if #form.schema.commands > 0 and indent == '' then
    blocks[#blocks + 1] = { key = 'gap', lines = { '' } }
  end
  for _, command in ipairs(form.schema.commands) do
    blocks[#blocks + 1] = command_block(form, command, indent)
  end
end

-- The width a status line may take: the narrowest window showing the form
-- (less its number and sign columns), else the editor's, less one for the
-- cursor; never under 20. (Read from the windows; no buffer is touched.)
local function status_width(form)
  local width
  for _, info in ipairs(form.buf and vim.fn.getwininfo() or {}) do
    if info.bufnr == form.buf then
      local text = info.width - (info.textoff or 0)
      width = width and math.min(width, text) or text
    end
  end
  return math.max((width or vim.o.columns) - 1, 20)
end

-- "!! text" as lines no wider than width, broken between words (a word
-- longer than a line has a line of its own), the next lines indented under
-- the text: a long build error keeps its message and location readable
-- with 'nowrap', and is not cut mid-word with 'wrap'.
function M.status_lines(text, width)
  local lines, line = {}, '!!'
  for word in text:gmatch('%S+') do
    if #line > 3 and vim.fn.strdisplaywidth(line .. ' ' .. word) > width then
      lines[#lines + 1] = line
      line = '  '
    end
    line = line .. ' ' .. word
  end
  lines[#lines + 1] = line
  return lines
end

-- The blocks, in buffer order; each has key and lines (and what it shows).
function M.build(form)
  local blocks = { { key = 'title', lines = { M.title(form) }, title = true } }
  if form.dead then
    blocks[#blocks + 1] = { key = 'status', lines = M.status_lines(form.dead, status_width(form)), status = true }
  end
  if form.build_error and not form.dead then -- bindery-dev: the build failed (devloop.lua)
    blocks[#blocks + 1] = { key = 'build', lines = M.status_lines(form.build_error, status_width(form)), status = true }
  end
  members(form, form, blocks, '')
  return blocks
end

return M
