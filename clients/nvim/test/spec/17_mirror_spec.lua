-- Tests/ClientMirror's corpus through the plugin's own mirror (lua/bindery/mirror.lua): every
-- case's `given` held, its `receive` folded in order, compared with `expect` as
-- reference_mirror.py's `run` does. With every case run and passed, and BINDERY_MIRROR_RECEIPTS
-- set, writes the receipt $BINDERY_MIRROR_RECEIPTS/neovim.json.
local T = require('helpers')

local compat = require('bindery.compat')
local mirror = require('bindery.mirror')

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h:h')
local cases_dir = root .. '/Tests/ClientMirror/cases'

-- The case files' shorthand: {"$range": N} is the list 0..N-1.
local function expand(v)
  if type(v) ~= 'table' then return v end
  if v['$range'] ~= nil and vim.tbl_count(v) == 1 then
    local list = {}
    for i = 1, v['$range'] do list[i] = i - 1 end
    return list
  end
  local copy = compat.islist(v) and {} or vim.empty_dict() -- an object stays one
  for k, item in pairs(v) do copy[k] = expand(item) end
  return copy
end

-- Python's ==, on values as vim.json decodes them: null is vim.NIL; an object (decoded from {},
-- or `as_object`) is never equal to a list, an empty one included.
local function equal(a, b, as_object)
  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end
  local function object(t) return as_object or not compat.islist(t) end
  if object(a) ~= object(b) then return false end
  for k, v in pairs(a) do
    if not equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function show(v)
  local s = vim.inspect(v)
  return #s > 200 and s:sub(1, 200) .. '…' or s
end

-- What differs from the case's expectation (empty when it passes).
local function run(case)
  local m = mirror.new()
  local given = expand(case.given)
  for id, session in pairs(given.sessions or {}) do m:hold(id, session) end
  for _, write in ipairs(given.pending or {}) do m:sent(write.id, write.session, write.field, write.value) end
  for _, message in ipairs(expand(case.receive)) do m:receive(message) end
  local expect = expand(case.expect)
  local problems = {}
  local function problem(...) problems[#problems + 1] = string.format(...) end

  local resync, wanted = {}, {}
  for id in pairs(m.resync) do resync[#resync + 1] = id end
  for _, id in ipairs(expect.resync or {}) do wanted[#wanted + 1] = tonumber(id) end
  table.sort(resync)
  table.sort(wanted)
  if not vim.deep_equal(resync, wanted) then problem('resync %s, expected %s', show(resync), show(wanted)) end

  if expect.sessions then
    local held, names = {}, {}
    for id in pairs(m.sessions) do
      if not m.resync[id] then held[#held + 1] = id end
    end
    for id in pairs(expect.sessions) do names[#names + 1] = tonumber(id) end
    table.sort(held)
    table.sort(names)
    if not vim.deep_equal(held, names) then problem('sessions %s, expected %s', show(held), show(names)) end
    for id, expected in pairs(expect.sessions) do
      local actual = (not m.resync[tonumber(id)] and m.sessions[tonumber(id)]) or {}
      for key, value in pairs(expected) do
        -- A session's state and display are objects, whatever Lua table holds them.
        if not equal(actual[key], value, key == 'state' or key == 'display') then
          problem('session %s %s: %s, expected %s', id, key, show(actual[key]), show(value))
        end
      end
    end
  end
  for id, fields in pairs(expect.shown or {}) do
    for name, value in pairs(fields) do
      local shown = m:shown(id, name)
      if not equal(shown, value) then problem('session %s shows %s = %s, expected %s', id, name, show(shown), show(value)) end
    end
  end
  if expect.pending then
    local ids = {}
    for _, writer in ipairs(m.pending) do ids[#ids + 1] = writer.id end
    if not vim.deep_equal(ids, expect.pending) then problem('pending %s, expected %s', show(ids), show(expect.pending)) end
  end
  return problems
end

T.test('client mirror: every case of Tests/ClientMirror/cases through mirror.lua', function()
  local files = vim.fn.sort(vim.fn.glob(cases_dir .. '/*.json', false, true))
  T.truthy(#files > 0, 'case files in ' .. cases_dir)
  local ran, failures = 0, {}
  for _, file in ipairs(files) do
    local f = assert(io.open(file, 'rb'))
    local corpus = vim.json.decode(f:read('*a'))
    f:close()
    for _, case in ipairs(corpus.cases) do
      ran = ran + 1
      local ok, problems = pcall(run, case)
      if not ok then problems = { 'error: ' .. tostring(problems) } end
      if #problems > 0 then
        failures[#failures + 1] = ('%s: %s: %s'):format(vim.fn.fnamemodify(file, ':t'), case.name, table.concat(problems, '; '))
      end
    end
  end
  if #failures > 0 then error(('%d of %d cases failed:\n%s'):format(#failures, ran, table.concat(failures, '\n')), 0) end
  local receipts = os.getenv('BINDERY_MIRROR_RECEIPTS')
  if receipts and receipts ~= '' then
    local out = assert(io.open(receipts .. '/neovim.json', 'w'))
    out:write(vim.json.encode({ face = 'neovim', cases = ran }))
    out:close()
  end
end)
