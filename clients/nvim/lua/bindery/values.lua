-- Values as form text and back, driven by a schema type object
-- ({type = 'string'|'boolean'|'integer'|'number'|'enum'|'array'|'object', ...}).
local compat = require('bindery.compat')
local json = require('bindery.json')
local types = require('bindery.types')

local M = {}

local function is_null(v)
  return v == nil or v == vim.NIL
end

function M.number(n)
  if n == math.floor(n) and math.abs(n) < 2 ^ 53 then return ('%d'):format(n) end
  return ('%.15g'):format(n)
end

-- One value on one line, for values nested in objects and arrays.
function M.inline(v, nested)
  if is_null(v) then return nested and 'null' or '' end
  local kind = type(v)
  if kind == 'boolean' then return tostring(v) end
  if kind == 'number' then return M.number(v) end
  if kind == 'string' then return (v:gsub('\n', '\\n')) end
  if kind ~= 'table' then return tostring(v) end
  local parts = {}
  if json.is_object(v) or not compat.islist(v) then
    for _, k in ipairs(json.keys(v)) do
      parts[#parts + 1] = k .. ': ' .. M.inline(v[k], true)
    end
    local body = table.concat(parts, ', ')
    return nested and '{' .. body .. '}' or (body == '' and '{}' or body)
  end
  for _, item in ipairs(v) do parts[#parts + 1] = M.inline(item, true) end
  local body = table.concat(parts, ', ')
  return nested and '[' .. body .. ']' or body
end

-- A read-only value as display lines: the first goes after the label, the
-- others are continuation lines (a multi-line string, one line per element
-- of an array of objects or arrays). Second result: whether the continuation
-- lines carry their own indent (list items) rather than align with the value.
function M.lines(v)
  if type(v) == 'string' then
    return vim.split(v, '\n', { plain = true })
  end
  if type(v) == 'table' and not json.is_object(v) and compat.islist(v) then
    if #v == 0 then return { '(none)' } end
    local structured = false
    for _, item in ipairs(v) do
      if type(item) == 'table' then structured = true end
    end
    if not structured then return { M.inline(v) } end
    local lines = { '' }
    for _, item in ipairs(v) do lines[#lines + 1] = M.item(item) end
    return lines, true
  end
  return { M.inline(v) }
end

-- The line of one element of an array shown one element per line.
function M.item(item)
  return '  - ' .. M.inline(item)
end

-- How a read-only value of a field's type shows: lines (the first after the
-- label), whether the others hang (their own indent), and whether they are
-- a list's elements, one a line (which splices edit). item_line(element)
-- makes an element's line.
function M.show(field, v, item_line)
  local kind = field.type
  if kind == 'dictionary' or kind == 'union' or kind == 'any' then
    local lines = types.lines(field, v, item_line)
    return lines, #lines > 1, false
  end
  local lines, hanging = M.lines(v)
  if hanging and kind == 'array' then
    for i = 2, #lines do lines[i] = item_line(v[i - 1]) end
  end
  return lines, hanging, hanging and kind == 'array'
end

-- Whether a field's text is read by types.lua (formats, lists, structs,
-- dictionaries, unions, any) rather than as a plain scalar.
local function typed(field)
  local kind = field.type
  return field.format ~= nil or not (kind == 'string' or kind == 'boolean' or kind == 'integer'
    or kind == 'number' or kind == 'enum')
end

-- The one-line text of a writable field, which the person edits in place.
-- Lists, structs, dictionaries and unions in the one-line form of types.lua.
function M.text(field, v)
  if is_null(v) then return '' end
  local kind = field.type
  if kind == 'boolean' then return v and '[x]' or '[ ]' end
  if typed(field) then return types.text(field, v) end
  if type(v) == 'string' then return (v:gsub('\\', '\\\\'):gsub('\n', '\\n')) end
  return M.inline(v)
end

local truthy = { ['[x]'] = true, ['[X]'] = true, x = true, ['true'] = true, yes = true, on = true, ['1'] = true }
local falsy = { ['[ ]'] = true, ['[]'] = true, [''] = true, ['false'] = true, no = true, off = true, ['0'] = true }

-- Text typed in a writable field -> ok, value (or false, why). Empty text is
-- null where the schema allows it.
function M.parse(field, text)
  local kind = field.type
  local trimmed = vim.trim(text)
  if trimmed == '' and field.nullable and kind ~= 'boolean' then return true, vim.NIL end
  if typed(field) then return types.parse(field, text) end
  if kind == 'string' then
    return true, (text:gsub('\\(.)', { n = '\n', ['\\'] = '\\' }))
  elseif kind == 'integer' or kind == 'number' then
    local n = trimmed:match('^[-+]?[%d.]+[eE]?[-+]?%d*$') and tonumber(trimmed)
    if not n then
      return false, ('%q is not a number'):format(trimmed)
    end
    if n ~= n or n == math.huge or n == -math.huge then return false, 'the number is too large' end
    if kind == 'integer' and n ~= math.floor(n) then
      return false, ('%s is not a whole number'):format(trimmed)
    end
    return true, n
  elseif kind == 'boolean' then
    if truthy[trimmed] then return true, true end
    if falsy[trimmed] then return true, false end
    return false, 'type [x] or [ ] (true or false)'
  elseif kind == 'enum' then
    for _, case in ipairs(field.cases or {}) do
      if case == trimmed then return true, case end
    end
    return false, 'one of: ' .. table.concat(field.cases or {}, ', ')
  end
  local ok, v = pcall(json.decode, trimmed)
  if not ok then return false, 'not JSON: ' .. tostring(v) end
  return true, json.prepare(v)
end

return M
