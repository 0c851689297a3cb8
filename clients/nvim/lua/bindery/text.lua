-- What a member shows: the daemon's text (protocol.md, "Display and text"),
-- never this plugin's reading of a value. The daemon sends `display` for
-- every member that is not a string, a list or a child; a string is its own
-- text. It sends none for a list's elements or a command's result: those
-- are drawn in the compact form below, the one place this plugin writes a
-- value (README, "What is the plugin's and what is the daemon's").
local json = require('bindery.json')

local M = {}

local function is_null(v)
  return v == nil or v == vim.NIL
end

-- A list element or a command's result on one line: a string as is, a
-- struct as `name: value, …` (nested in braces), a list in brackets.
function M.inline(v, nested)
  if is_null(v) then return nested and 'null' or '' end
  if type(v) == 'string' then return (v:gsub('\n', '\\n')) end
  if type(v) ~= 'table' then return json.encode(v) end
  local parts = {}
  if json.is_list(v) and next(v) ~= nil then
    for _, item in ipairs(v) do parts[#parts + 1] = M.inline(item, true) end
    local body = table.concat(parts, ', ')
    return nested and '[' .. body .. ']' or body
  end
  for _, k in ipairs(json.keys(v)) do parts[#parts + 1] = k .. ': ' .. M.inline(v[k], true) end
  local body = table.concat(parts, ', ')
  return nested and '{' .. body .. '}' or (body == '' and '{}' or body)
end

-- A read-only member's text: the daemon's display, a string's own lines,
-- or (a daemon that sent no display) the value's JSON. Lists: see M.items.
function M.lines(form, name)
  local shown = form.display[name]
  if shown ~= nil then return { shown } end
  local v = form.state[name]
  if is_null(v) then return { '' } end
  if type(v) == 'string' then return vim.split(v, '\n', { plain = true }) end
  return { json.encode(v) }
end

-- A command's result (no display comes with it): its lines.
function M.result_lines(v)
  if type(v) == 'string' then return vim.split(v, '\n', { plain = true }) end
  if json.is_list(v) and #v > 0 then
    local lines = { '' }
    for _, item in ipairs(v) do lines[#lines + 1] = '  - ' .. M.inline(item) end
    return lines
  end
  return { M.inline(v) }
end

-- The one line of a writable field the person edits in place. A line holds
-- no line break: a string's is shown as \n (and \ as \\). A list, which has
-- no display, is its JSON, which the daemon reads back for lists of numbers
-- and strings. A boolean is a checkbox, a control rather than text.
function M.editable(form, field)
  local name = field.name
  local v = form.state[name]
  if field.type == 'boolean' and type(v) == 'boolean' then return v and '[x]' or '[ ]' end
  if type(v) == 'string' and form.display[name] == nil then
    return (v:gsub('\\', '\\\\'):gsub('\n', '\\n'))
  end
  if json.is_list(v) then return json.encode(v) end
  return M.lines(form, name)[1]
end

local checkbox = { ['[x]'] = true, ['[X]'] = true, ['[ ]'] = false, ['[]'] = false }

-- What goes in setField for the line typed: {text = what was typed} (a
-- string's \n and \\ back to what they stand for), or a checkbox's {value}.
function M.params(field, line)
  if field.type == 'boolean' and checkbox[vim.trim(line)] ~= nil then
    return { value = checkbox[vim.trim(line)] }
  end
  if field.type == 'string' and not field.format then
    return { text = (line:gsub('\\(.)', { n = '\n', ['\\'] = '\\' })) }
  end
  return { text = line }
end

-- The words shown when the daemon could not read a person's text.
function M.refusal(err)
  local data = type(err) == 'table' and err.data
  if err.code == -32602 and type(data) == 'table' and type(data.expected) == 'string' then
    return 'expected ' .. data.expected
  end
  return err.message
end

return M
