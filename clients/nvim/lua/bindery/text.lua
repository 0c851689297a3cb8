-- What a member shows: the daemon's text (protocol.md, "Display and text"),
-- never this plugin's reading of a value. The daemon sends `display` for
-- every member that is not a string, a list or a child; a string is its own
-- text. It sends none for a list's elements or a command's result: those
-- are drawn in the compact form below, the one place this plugin writes a
-- value (README, "What is the plugin's and what is the daemon's").
local compat = require('bindery.compat')

local M = {}

local function is_null(v)
  return v == nil or v == vim.NIL
end

-- Whether v is a list (a JSON array), not an object (vim.json decodes {}
-- as vim.empty_dict()) or a scalar.
function M.is_list(v)
  return type(v) == 'table' and compat.islist(v)
end

-- An object's members in the order its type (t, the schema's type object)
-- declares them, an enum's case first; then any others, sorted. Returns the
-- names and name -> the member's type.
local function members(v, t)
  t = type(t) == 'table' and t or {}
  local names, types, declared = {}, {}, t.members
  for _, case in ipairs(t.type == 'union' and t.cases or {}) do
    if case.name == v.case then names[1], declared = 'case', case.members end
  end
  for _, member in ipairs(declared or {}) do
    if v[member.name] ~= nil and member.name ~= 'case' then
      names[#names + 1], types[member.name] = member.name, member
    end
  end
  local rest = {}
  for k in pairs(v) do
    if not types[k] and k ~= names[1] then rest[#rest + 1] = k end
    types[k] = types[k] or t.values -- a dictionary's values
  end
  table.sort(rest, function(a, b) return tostring(a) < tostring(b) end)
  return vim.list_extend(names, rest), types
end

-- A value's JSON (t: its type), an object's members in its type's order.
local function to_json(v, t)
  if type(v) ~= 'table' or v == vim.NIL or next(v) == nil then return vim.json.encode(v) end
  local parts = {}
  if M.is_list(v) then
    for i, item in ipairs(v) do parts[i] = to_json(item, type(t) == 'table' and t.items) end
    return '[' .. table.concat(parts, ',') .. ']'
  end
  local names, types = members(v, t)
  for i, k in ipairs(names) do parts[i] = vim.json.encode(tostring(k)) .. ':' .. to_json(v[k], types[k]) end
  return '{' .. table.concat(parts, ',') .. '}'
end

-- A list element or a command's result on one line (t: its type): a string
-- as is, a struct as `name: value, …` (nested in braces), a list in brackets.
function M.inline(v, t, nested)
  if is_null(v) then return nested and 'null' or '' end
  if type(v) == 'string' then return (v:gsub('\n', '\\n')) end
  if type(v) ~= 'table' then return vim.json.encode(v) end
  local parts = {}
  if M.is_list(v) and next(v) ~= nil then
    local items = type(t) == 'table' and t.items or nil
    for _, item in ipairs(v) do parts[#parts + 1] = M.inline(item, items, true) end
    local body = table.concat(parts, ', ')
    return nested and '[' .. body .. ']' or body
  end
  local names, types = members(v, t)
  for _, k in ipairs(names) do parts[#parts + 1] = k .. ': ' .. M.inline(v[k], types[k], true) end
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
  return { vim.json.encode(v) }
end

-- A command's result (no display comes with it; t: its type): its lines.
function M.result_lines(v, t)
  if type(v) == 'string' then return vim.split(v, '\n', { plain = true }) end
  if M.is_list(v) and #v > 0 then
    local lines = { '' }
    for _, item in ipairs(v) do lines[#lines + 1] = '  - ' .. M.inline(item, type(t) == 'table' and t.items) end
    return lines
  end
  return { M.inline(v, t) }
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
  if M.is_list(v) then return to_json(v, field) end
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
