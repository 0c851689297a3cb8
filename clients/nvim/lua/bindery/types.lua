-- The value types of protocol.md ("Value types") beyond plain strings,
-- numbers and booleans: string formats (date-time, uuid, uri, decimal,
-- byte, error), sets, dictionaries, unions (enums with payloads) and any.
-- Each is shown as text and read back from text, checked before it is sent.
--
-- The text of a compound value, on one line:
--   list (a set, an index set)  1, 2, 5          nested: [1, 2, 5]
--   struct, dictionary          a: 1, b: [x]     nested: {a: 1, b: [x]}
--   union                       circle(radius: 1.5), rectangle(2, 3), point
--   any                         its JSON
-- A string that would read otherwise (a comma, a bracket, empty) is written
-- as a JSON string, "like, this"; JSON is accepted wherever text is.
local compat = require('bindery.compat')
local json = require('bindery.json')

local M = {}

local function is_null(v)
  return v == nil or v == vim.NIL
end

local function number(n)
  if n == math.floor(n) and math.abs(n) < 2 ^ 53 then return ('%d'):format(n) end
  return ('%.15g'):format(n)
end

local scalar = { string = true, boolean = true, integer = true, number = true, enum = true }

function M.is_scalar(t)
  return t ~= nil and scalar[t.type] == true
end

-- Whether a type is new to this module (the seed types keep their old text).
function M.is_compound(t)
  if not t then return false end
  local kind = t.type
  if kind == 'dictionary' or kind == 'union' or kind == 'any' then return true end
  if kind == 'array' then return t.uniqueItems == true or M.is_scalar(t.items) end
  return false
end

-- Members of a union case that have no labels: _0, _1, …
local function positional(members)
  if #members == 0 then return false end
  for _, m in ipairs(members) do
    if not m.name:match('^_%d+$') then return false end
  end
  return true
end

function M.union_case(t, name)
  for _, case in ipairs(t.cases or {}) do
    if case.name == name then return case end
  end
end

local function case_names(t)
  local names = {}
  for _, case in ipairs(t.cases or {}) do names[#names + 1] = case.name end
  return names
end

-- Formats --------------------------------------------------------------

local days = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }

local function date_time(s)
  local y, mo, d, h, mi, sec, rest = s:match('^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)(.*)$')
  if not y then return false end
  local fraction, zone = rest:match('^(%.%d+)(.*)$')
  zone = fraction and zone or rest
  if not (zone == 'Z' or zone:match('^[-+]%d%d:?%d%d$')) then return false end
  y, mo, d, h, mi, sec = tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), tonumber(sec)
  if mo < 1 or mo > 12 or d < 1 or h > 23 or mi > 59 or sec > 59 then return false end
  local leap = (y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0
  if d > days[mo] or (mo == 2 and d == 29 and not leap) then return false end
  return true
end

local function decimal(s)
  local mantissa = s:gsub('^[-+]', ''):gsub('[eE][-+]?%d+$', '')
  return mantissa:match('^%d+%.?%d*$') ~= nil or mantissa:match('^%.%d+$') ~= nil
end

local function base64(s)
  return #s % 4 == 0 and s:match('^[%w+/]*=?=?$') ~= nil
end

local formats = {
  ['date-time'] = { check = date_time, says = 'a date and time, ISO 8601 like 2025-11-25T10:00:00Z' },
  uuid = {
    check = function(s) return s:match('^' .. ('%x'):rep(8) .. '%-' .. ('%x'):rep(4) .. '%-' .. ('%x'):rep(4)
      .. '%-' .. ('%x'):rep(4) .. '%-' .. ('%x'):rep(12) .. '$') ~= nil end,
    says = 'a UUID like 0f8fad5b-d9cb-469f-a165-70867728950e',
  },
  uri = { check = function(s) return s ~= '' and not s:find('%s') end, says = 'a URL (no spaces) like https://example.com/' },
  decimal = { check = decimal, says = 'a decimal number like 12.50' },
  byte = { check = base64, says = 'base64 like AAEC+g==' },
}

-- Checks a string against its type's format: true, or false and why.
function M.check_format(t, s)
  local format = t and t.format and formats[t.format]
  if not format or format.check(s) then return true end
  return false, ('%q is not %s'):format(s, format.says)
end

-- Text -----------------------------------------------------------------

-- A string as it reads nested in a compound value: as is, unless it would
-- read as something else.
local function nested_string(s)
  if s == '' or s == 'null' or s:find('[,:%[%]{}()"\\\n]') or s:match('^%s') or s:match('%s$') then
    return json.encode(s)
  end
  return s
end

local text

local function members_text(pairs_list, nested)
  local parts = {}
  for _, pair in ipairs(pairs_list) do parts[#parts + 1] = pair end
  local body = table.concat(parts, ', ')
  return nested and '{' .. body .. '}' or body
end

-- The text of v, of type t; nested: inside another value.
function text(t, v, nested)
  t = t or { type = 'any' }
  if is_null(v) then return nested and 'null' or '' end
  local kind = t.type
  if kind == 'any' then return json.encode(json.prepare(v)) end
  if type(v) == 'boolean' then return tostring(v) end
  if type(v) == 'number' then return number(v) end
  if type(v) == 'string' then return nested and nested_string(v) or v end
  if type(v) ~= 'table' then return tostring(v) end
  if kind == 'union' then
    local case = M.union_case(t, v.case)
    local members = case and case.members or {}
    if #members == 0 then return tostring(v.case) end
    local parts, bare = {}, positional(members)
    for _, m in ipairs(members) do
      if not is_null(v[m.name]) then
        local value = text(m, v[m.name], true)
        parts[#parts + 1] = bare and value or (m.name .. ': ' .. value)
      end
    end
    return v.case .. '(' .. table.concat(parts, ', ') .. ')'
  end
  if kind == 'array' or (not json.is_object(v) and compat.islist(v) and next(v) ~= nil) then
    local parts = {}
    for _, item in ipairs(v) do parts[#parts + 1] = text(t.items, item, true) end
    local body = table.concat(parts, ', ')
    return nested and '[' .. body .. ']' or body
  end
  local member_types = {}
  for _, m in ipairs(t.members or {}) do member_types[m.name] = m end
  local parts = {}
  for _, k in ipairs(json.keys(v)) do
    local member = kind == 'dictionary' and t.values or member_types[k]
    parts[#parts + 1] = (k:find('[,:%[%]{}()"%s]') and json.encode(k) or k) .. ': ' .. text(member, v[k], true)
  end
  return members_text(parts, nested)
end
M.text = text

-- Splits s at the commas outside brackets and JSON strings.
local function split(s)
  local parts, depth, start, i, quoted = {}, 0, 1, 1, false
  while i <= #s do
    local c = s:sub(i, i)
    if quoted then
      if c == '\\' then i = i + 1 elseif c == '"' then quoted = false end
    elseif c == '"' then quoted = true
    elseif c == '[' or c == '{' or c == '(' then depth = depth + 1
    elseif c == ']' or c == '}' or c == ')' then depth = depth - 1
    elseif c == ',' and depth == 0 then
      parts[#parts + 1] = s:sub(start, i - 1)
      start = i + 1
    end
    i = i + 1
  end
  parts[#parts + 1] = s:sub(start)
  return parts
end

-- "key: value" -> key, value (the first colon outside a JSON string).
local function key_value(s)
  s = vim.trim(s)
  local key, rest
  if s:sub(1, 1) == '"' then
    local ok, decoded = pcall(json.decode, s:match('^("[^"]*")') or '')
    if ok and type(decoded) == 'string' then
      key, rest = decoded, s:sub(#json.encode(decoded) + 1)
      rest = rest:match('^%s*:(.*)$')
    end
  else
    key, rest = s:match('^([^:]-)%s*:(.*)$')
  end
  return key, rest
end

local function strip(s, open, close)
  s = vim.trim(s)
  if s:sub(1, 1) == open and s:sub(-1) == close then return s:sub(2, -2), true end
  return s, false
end

local function unquote(s)
  if s:sub(1, 1) == '"' then
    local ok, v = pcall(json.decode, s)
    if ok and type(v) == 'string' then return v end
  end
  return s
end

local parse

local function parse_scalar(t, s, nested)
  local kind = t.type
  if kind == 'string' or kind == 'enum' then
    local v = nested and unquote(s) or s
    if kind == 'enum' then
      for _, case in ipairs(t.cases or {}) do
        if case == v then return true, v end
      end
      return false, 'one of: ' .. table.concat(t.cases or {}, ', ')
    end
    if t.format then
      v = vim.trim(v)
      local ok, why = M.check_format(t, v)
      if not ok then return false, why end
    end
    return true, v
  elseif kind == 'integer' or kind == 'number' then
    local n = s:match('^[-+]?[%d.]+[eE]?[-+]?%d*$') and tonumber(s)
    if not n then return false, ('%q is not a number'):format(s) end
    if n ~= n or n == math.huge or n == -math.huge then return false, 'the number is too large' end
    if kind == 'integer' and n ~= math.floor(n) then return false, ('%s is not a whole number'):format(s) end
    return true, n
  elseif kind == 'boolean' then
    if s == 'true' then return true, true end
    if s == 'false' then return true, false end
    return false, ('%q is not true or false'):format(s)
  end
end

local function parse_union(t, s)
  local name, args = s:match('^([%w_]+)%s*(%b())$')
  if not name then name = s:match('^([%w_]+)$') end
  local case = name and M.union_case(t, name)
  if not case then
    return false, ('%q is not one of: %s'):format(s, table.concat(case_names(t), ', '))
  end
  local value = { case = name }
  local given = {}
  args = args and vim.trim(args:sub(2, -2)) or ''
  if args ~= '' then
    local position = 0
    for _, part in ipairs(split(args)) do
      local key, rest = key_value(part)
      local member
      for _, m in ipairs(case.members) do
        if key and m.name == vim.trim(key) then member = m end
      end
      if not member then
        position = position + 1
        member, rest = case.members[position], part
        if not member then return false, ('%s takes %d values'):format(name, #case.members) end
      end
      local ok, v = parse(member, rest, true)
      if not ok then return false, member.name .. ': ' .. v end
      value[member.name] = v
      given[member.name] = true
    end
  end
  for _, m in ipairs(case.members) do
    if not given[m.name] and not m.optional and not m.nullable then
      return false, ('%s needs %s'):format(name, positional(case.members) and (#case.members .. ' values') or m.name)
    end
  end
  return true, value
end

-- Text -> true, value (ready to send) or false, why.
function parse(t, s, nested)
  t = t or { type = 'any' }
  s = vim.trim(s)
  if (s == '' or (nested and s == 'null')) and (t.nullable or t.optional) then return true, vim.NIL end
  local kind = t.type
  if kind == 'any' then
    if s == '' then return false, 'a JSON value is required' end
    local ok, v = pcall(json.decode, s)
    if not ok then return false, 'not JSON: ' .. tostring(v) end
    return true, json.prepare(v)
  end
  if scalar[kind] then return parse_scalar(t, s, nested) end
  if kind == 'union' then return parse_union(t, s) end
  if kind == 'array' then
    local body = strip(s, '[', ']')
    local list = {}
    if vim.trim(body) == '' then return true, list end
    for i, part in ipairs(split(body)) do
      local ok, v = parse(t.items, part, true)
      if not ok then return false, ('item %d: %s'):format(i, v) end
      list[#list + 1] = v
    end
    return true, list
  end
  if kind == 'object' or kind == 'dictionary' then
    local body = strip(s, '{', '}')
    local object, members = vim.empty_dict(), {}
    for _, m in ipairs(t.members or {}) do members[m.name] = m end
    if vim.trim(body) ~= '' then
      for _, part in ipairs(split(body)) do
        local key, rest = key_value(part)
        if not key or key == '' then return false, ('%q is not "name: value"'):format(vim.trim(part)) end
        local member = kind == 'dictionary' and t.values or members[key]
        if not member then
          local names = {}
          for _, m in ipairs(t.members or {}) do names[#names + 1] = m.name end
          return false, ('no member %q (it has %s)'):format(key, table.concat(names, ', '))
        end
        local ok, v = parse(member, rest, true)
        if not ok then return false, key .. ': ' .. v end
        if not (is_null(v) and member.optional) then object[key] = v end
      end
    end
    for _, m in ipairs(t.members or {}) do
      if object[m.name] == nil and not m.optional then return false, m.name .. ' is missing' end
    end
    return true, object
  end
  return false, 'cannot read a ' .. tostring(kind)
end
M.parse = parse

-- Display --------------------------------------------------------------

-- The lines of a read-only compound value: the first after the label, the
-- others hanging (their own indent). A dictionary: one "key: value" line per
-- key; a union: its case (and scalar members), then the elements of a list
-- it carries, one a line.
function M.lines(t, v, item_line)
  if is_null(v) then return { '' } end
  local kind = t.type
  if kind == 'dictionary' then
    local keys = json.keys(v)
    if #keys == 0 then return { '(none)' } end
    local lines = { '' }
    for _, k in ipairs(keys) do
      lines[#lines + 1] = '  ' .. k .. ': ' .. text(t.values, v[k], not M.is_scalar(t.values))
    end
    return lines
  end
  if kind == 'union' and type(v) == 'table' then
    local case = M.union_case(t, v.case)
    local members = case and case.members or {}
    local list, rest = nil, {}
    for _, m in ipairs(members) do
      if m.type == 'array' and not M.is_scalar(m.items) and list == nil and not is_null(v[m.name]) then
        list = v[m.name]
      elseif not is_null(v[m.name]) then
        rest[#rest + 1] = positional(members) and text(m, v[m.name], true) or (m.name .. ': ' .. text(m, v[m.name], true))
      end
    end
    local head = tostring(v.case) .. (#rest > 0 and ('(' .. table.concat(rest, ', ') .. ')') or '')
    local lines = { head }
    if list then
      if #list == 0 then lines[1] = head .. ' (none)' end
      for _, item in ipairs(list) do lines[#lines + 1] = item_line(item) end
    end
    return lines
  end
  if kind == 'any' then return { text(t, v) } end
  local shown = text(t, v)
  return { shown == '' and (kind == 'array' and '(none)' or '') or shown }
end

return M
