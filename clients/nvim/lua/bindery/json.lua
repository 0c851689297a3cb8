-- JSON decoding that remembers the order of object members. vim.json forgets
-- it, and a form should show a struct's members in the order the view model
-- declares them (a movie as "id, fullTitle, givenRating", not alphabetical).
-- Encoding keeps that order too: a value sent back as it was shown (a row of
-- a list, as a command's argument) goes with its members as they came.
local M = {}

local byte, sub, find, char = string.byte, string.sub, string.find, string.char
local floor = math.floor

-- Decoded objects -> their member names in order. Weak, so tables can go.
local order = setmetatable({}, { __mode = 'k' })

local escapes = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t' }

local function utf8(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then return char(0xC0 + floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return char(0xE0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return char(0xF0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64, 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
end

local function skip_whitespace(s, i)
  return find(s, '[^ \t\r\n]', i) or #s + 1
end

local function fail(s, i, what)
  error(('JSON: %s at byte %d'):format(what, i), 0)
end

local function string_at(s, i)
  local parts, j = {}, i + 1
  while true do
    local k = find(s, '["\\]', j)
    if not k then fail(s, i, 'unterminated string') end
    parts[#parts + 1] = sub(s, j, k - 1)
    if byte(s, k) == 34 then return table.concat(parts), k + 1 end
    local c = sub(s, k + 1, k + 1)
    if c == 'u' then
      local cp = tonumber(sub(s, k + 2, k + 5), 16) or fail(s, k, 'bad \\u escape')
      j = k + 6
      if cp >= 0xD800 and cp < 0xDC00 and sub(s, j, j + 1) == '\\u' then
        local low = tonumber(sub(s, j + 2, j + 5), 16)
        if low and low >= 0xDC00 and low < 0xE000 then
          cp = 0x10000 + (cp - 0xD800) * 1024 + (low - 0xDC00)
          j = j + 6
        end
      end
      parts[#parts + 1] = utf8(cp)
    else
      parts[#parts + 1] = escapes[c] or fail(s, k, 'bad escape')
      j = k + 2
    end
  end
end

local value_at

local function object_at(s, i)
  local t, keys = {}, {}
  order[t] = keys
  i = skip_whitespace(s, i + 1)
  if byte(s, i) == 125 then return t, i + 1 end
  while true do
    if byte(s, i) ~= 34 then fail(s, i, 'expected a member name') end
    local k, v
    k, i = string_at(s, i)
    i = skip_whitespace(s, i)
    if byte(s, i) ~= 58 then fail(s, i, "expected ':'") end
    v, i = value_at(s, i + 1)
    if t[k] == nil then keys[#keys + 1] = k end
    t[k] = v
    i = skip_whitespace(s, i)
    local c = byte(s, i)
    if c == 125 then return t, i + 1 end
    if c ~= 44 then fail(s, i, "expected ',' or '}'") end
    i = skip_whitespace(s, i + 1)
  end
end

local function array_at(s, i)
  local t, n = {}, 0
  i = skip_whitespace(s, i + 1)
  if byte(s, i) == 93 then return t, i + 1 end
  while true do
    local v
    v, i = value_at(s, i)
    n = n + 1
    t[n] = v
    i = skip_whitespace(s, i)
    local c = byte(s, i)
    if c == 93 then return t, i + 1 end
    if c ~= 44 then fail(s, i, "expected ',' or ']'") end
    i = i + 1
  end
end

local literals = { t = { 'true', true }, f = { 'false', false }, n = { 'null', vim.NIL } }

function value_at(s, i)
  i = skip_whitespace(s, i)
  local c = byte(s, i)
  if c == 123 then return object_at(s, i) end
  if c == 91 then return array_at(s, i) end
  if c == 34 then return string_at(s, i) end
  local lit = literals[sub(s, i, i)]
  if lit then
    if sub(s, i, i + #lit[1] - 1) ~= lit[1] then fail(s, i, 'bad literal') end
    return lit[2], i + #lit[1]
  end
  local j = find(s, '[^-+.%deE]', i) or #s + 1
  local n = tonumber(sub(s, i, j - 1))
  if not n or j == i then fail(s, i, 'unexpected character') end
  return n, j
end

-- Decodes one JSON text; null becomes vim.NIL, as with vim.json.
function M.decode(s)
  local v, i = value_at(s, 1)
  if skip_whitespace(s, i) <= #s then fail(s, i, 'trailing characters') end
  return v
end

local encode_scalar = vim.json.encode
local islist = require('bindery.compat').islist

local function encode_into(v, out)
  local keys = type(v) == 'table' and order[v]
  if not keys and (type(v) ~= 'table' or v == vim.NIL or next(v) == nil) then
    out[#out + 1] = encode_scalar(v) -- an empty table: [] or, for vim.empty_dict(), {}
  elseif not keys and islist(v) then
    out[#out + 1] = '['
    for i, item in ipairs(v) do
      if i > 1 then out[#out + 1] = ',' end
      encode_into(item, out)
    end
    out[#out + 1] = ']'
  else
    out[#out + 1] = '{'
    for i, k in ipairs(M.keys(v)) do
      if i > 1 then out[#out + 1] = ',' end
      out[#out + 1] = encode_scalar(tostring(k)) .. ':'
      encode_into(v[k], out)
    end
    out[#out + 1] = '}'
  end
end

-- Encodes v as JSON; objects decoded here keep their member order (and an
-- empty one stays an object).
function M.encode(v)
  local out = {}
  encode_into(v, out)
  return table.concat(out)
end

-- Whether t was decoded from a JSON object (an empty one included).
function M.is_object(t)
  return order[t] ~= nil
end

-- Whether v is a list (a JSON array), not an object or a scalar.
function M.is_list(v)
  return type(v) == 'table' and not order[v] and islist(v)
end

-- The member names of an object in document order (sorted for other tables).
function M.keys(t)
  if order[t] then return order[t] end
  local keys = vim.tbl_keys(t)
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

return M
