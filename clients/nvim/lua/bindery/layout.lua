-- What a form shows, as blocks of lines: the title, one block per member in
-- schema order ("Label: value", continuation lines indented under the value),
-- then one block per command (the button and, under it, its last result).
-- Pure: reads the form's state, touches no buffer.
local values = require('bindery.values')

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

-- The row buttons of a list element's line: { {command, from, to}, ... },
-- byte columns (0-based, end exclusive).
function M.row_buttons(commands)
  local spans, col = {}, 4 -- after "  - "
  for _, command in ipairs(commands or {}) do
    local label = '[ ' .. command.label .. ' ]'
    spans[#spans + 1] = { command = command, from = col, to = col + #label }
    col = col + #label + 1
  end
  return spans
end

-- The line showing one element of a list block (block.list), with a button
-- per command that takes the element.
function M.item_line(item, commands)
  local buttons = ''
  for _, command in ipairs(commands or {}) do buttons = buttons .. '[ ' .. command.label .. ' ] ' end
  return rstrip('  - ' .. buttons .. values.inline(item))
end

local function field_block(form, field)
  local prefix = field.label .. ': '
  local block = { key = 'field:' .. field.name, field = field, writable = field.writable, prefix = field.label .. ':' }
  if field.writable then
    block.lines = { prefix .. (form.text[field.name] or '') }
    return block
  end
  local commands = M.row_commands(form, field)
  local shown, hanging, list = values.show(field, form.state[field.name], function(item)
    return M.item_line(item, commands)
  end)
  local indent = hanging and '' or (' '):rep(vim.fn.strdisplaywidth(prefix))
  -- One line per element after the label line: list splices edit these.
  block.list = list
  block.row_commands = list and commands or nil
  block.lines = { rstrip(prefix .. shown[1]) }
  for i = 2, #shown do
    block.lines[i] = rstrip(indent .. shown[i])
  end
  return block
end

-- Whether a command runs: the daemon says so, or our invoke has not answered.
function M.running(form, command)
  if form.dead then return false end
  return form.state[command.name .. '.running'] == true
    or (command.async and form.pending[command.name] ~= nil)
end

local function command_block(form, command)
  local running = M.running(form, command)
  local block = {
    key = 'command:' .. command.name,
    command = command,
    running = running,
    enabled = form.state[command.name .. '.enabled'] ~= false,
    lines = { '[ ' .. command.label .. ' ]' .. (running and ' running…' or '') },
  }
  local result = form.results[command.name]
  if result and not running then
    local lines = result.ok and values.lines(result.value) or vim.split(result.message, '\n', { plain = true })
    if result.ok and (result.value == nil or result.value == vim.NIL) then lines = { 'done' } end
    if lines[1] == '' then table.remove(lines, 1) end
    for i, line in ipairs(lines) do
      block.lines[#block.lines + 1] = rstrip((i == 1 and (result.ok and '  → ' or '  ✗ ') or '    ') .. vim.trim(line))
    end
    block.result_ok = result.ok
  end
  return block
end

-- The blocks, in buffer order; each has key and lines (and what it shows).
function M.build(form)
  local blocks = { { key = 'title', lines = { M.title(form) }, title = true } }
  if form.dead then
    blocks[#blocks + 1] = { key = 'status', lines = { '!! ' .. form.dead }, status = true }
  end
  if form.build_error and not form.dead then -- bindery-dev: the build failed (devloop.lua)
    blocks[#blocks + 1] = { key = 'build', lines = { '!! ' .. form.build_error }, status = true }
  end
  for _, field in ipairs(form.schema.fields) do
    blocks[#blocks + 1] = field_block(form, field)
  end
  if #form.schema.commands > 0 then
    blocks[#blocks + 1] = { key = 'gap', lines = { '' } }
  end
  for _, command in ipairs(form.schema.commands) do
    blocks[#blocks + 1] = command_block(form, command)
  end
  return blocks
end

return M
