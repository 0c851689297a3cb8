-- bindery-dev's notifications (the developer loop; protocol.md, "The
-- developer loop"): when the daemon was rebuilt, the forms of the types whose
-- schema changed are drawn again from the new schemas, the cursor kept on its
-- field; a failed build goes to the quickfix list and a line in every form,
-- both cleared by the next success (a daemon that died while serving is shown
-- the same way); a session the reload closed is shown dead.
-- A plain binderyd never sends these, and nothing here runs then.
local log = require('bindery.log')
local text_of = require('bindery.text')
local ui = require('bindery.ui')

local M = {
  failed = nil, -- the first error of the failed build, while it stands
}

local QF_TITLE = 'bindery-dev: build failed'

local function daemon() return require('bindery.daemon') end
local function view() return require('bindery.view') end

local function live_forms(conn)
  local forms = {}
  for _, form in pairs(daemon().sessions) do
    -- Child sessions are drawn in their root's buffer: the root stands for them.
    if form.conn == conn and form.root == form and not form.closed and not form.dead then
      forms[#forms + 1] = form
    end
  end
  table.sort(forms, function(a, b) return a.session < b.session end)
  return forms
end

-- The form takes its type's new schema: new fields appear with the value the
-- daemon sent, removed ones go; what the person typed in a field that stays is kept.
local function take_schema(form, schema)
  form.schema = schema
  local fields, text, sent = {}, {}, {}
  for _, field in ipairs(schema.fields) do
    fields[field.name] = field
    if field.writable then
      local typed = form.fields[field.name] and form.fields[field.name].writable and form.text[field.name]
      text[field.name] = typed or text_of.editable(form, field)
      sent[field.name] = form.sent[field.name] or text[field.name]
    end
  end
  form.fields, form.text, form.sent = fields, text, sent
  for name in pairs(form.state) do
    local command = name:match('^(.*)%.running$') or name:match('^(.*)%.enabled$')
    if not fields[name] and not command then form.state[name] = nil end
  end
  view().render(form, true)
end

-- Whether the quickfix list is the one bindery-dev filled.
local function quickfix_is_ours()
  return vim.fn.getqflist({ title = 0 }).title == QF_TITLE
end

local function clear_failure(conn)
  local had = M.failed ~= nil
  M.failed = nil
  if quickfix_is_ours() then vim.fn.setqflist({}, 'r', { title = QF_TITLE .. ' (fixed)', items = {} }) end
  for _, form in ipairs(live_forms(conn)) do
    if form.build_error then
      form.build_error = nil
      view().render(form, true)
    end
  end
  return had
end

local function reloaded(conn, params)
  clear_failure(conn)
  local types = params.types
  if type(types) ~= 'table' then types = {} end
  local d = daemon()
  for _, name in ipairs(types) do
    d.schemas[name] = nil
    conn:request('viewModels/describe', { type = name }, function(err, result)
      if err then
        -- A type that is gone: its sessions were closed (session/closed).
        for i, known in ipairs(d.types) do
          if known == name then table.remove(d.types, i) break end
        end
        return
      end
      local schema = result.viewModels[1]
      d.schemas[name] = schema
      if not vim.tbl_contains(d.types, name) then d.types[#d.types + 1] = name end
      for _, form in ipairs(live_forms(conn)) do
        if form.type == name then take_schema(form, schema) end
      end
    end)
  end
  log.note(('reloaded: build %s ms, restart %s ms, migrate %s ms; changed: %s'):format(
    tostring(params.buildMs), tostring(params.restartMs), tostring(params.migrateMs), table.concat(types, ', ')))
end

-- what: the headline (default: the build failed, or the new daemon failed).
local function build_failed(conn, params, what)
  local items, first = {}, nil
  for _, d in ipairs(type(params.diagnostics) == 'table' and params.diagnostics or {}) do
    local file = type(d.file) == 'string' and d.file or nil
    local message = type(d.message) == 'string' and d.message or ''
    local lines = vim.split(message, '\n', { plain = true })
    local kind = d.severity == 'warning' and 'W' or 'E'
    items[#items + 1] = { filename = file, lnum = tonumber(d.line) or 0, col = tonumber(d.column) or 0,
      type = kind, text = lines[1] }
    for i = 2, #lines do items[#items + 1] = { text = lines[i], valid = 0 } end
    if not first and kind == 'E' then
      first = (file and (vim.fn.fnamemodify(file, ':t') .. ':' .. tostring(d.line) .. ': ') or '') .. lines[1]
    end
  end
  vim.fn.setqflist({}, ' ', { title = QF_TITLE, items = items })
  M.failed = first or 'the build failed'
  what = what or (params.rolledBack and 'the new daemon failed; still the previous build' or 'build failed')
  for _, form in ipairs(live_forms(conn)) do
    form.build_error = what .. ': ' .. M.failed .. ' (:copen)'
    view().render(form, true)
  end
  -- Short, so that it never asks for Enter: the forms and :copen say the rest.
  ui.warn(what .. ' (:copen)')
end

local function closed(params)
  local form = daemon().sessions[params.session]
  if not form then return end
  daemon().sessions[params.session] = nil
  form:die('closed: ' .. tostring(params.reason))
end

-- A notification that is not a didChange. Returns true when it was one of bindery-dev's.
function M.notification(conn, method, params)
  params = type(params) == 'table' and params or {}
  if method == 'daemon/reloaded' then
    reloaded(conn, params)
  elseif method == 'daemon/buildFailed' then
    build_failed(conn, params)
  elseif method == 'daemon/exited' then
    -- The daemon died while serving (a crash in a view model): a save restarts it, forms kept.
    build_failed(conn, { diagnostics = { { severity = 'error', message = tostring(params.message) } } },
      'the daemon exited; save a source to restart it')
  elseif method == 'session/closed' then
    closed(params)
  elseif method == 'daemon/reloading' then
    log.note('bindery-dev: building')
  else
    return false
  end
  return true
end

return M
