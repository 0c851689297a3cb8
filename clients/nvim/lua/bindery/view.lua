-- Puts a form's layout into its buffer: rewrites only the blocks that
-- changed, never the line the person is typing in, keeps every window's
-- cursor on the same member, and paints highlights, diagnostics, a spinner.
local compat = require('bindery.compat')
local layout = require('bindery.layout')

local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace('bindery')
M.spin_ns = api.nvim_create_namespace('bindery_spinner')
M.diag_ns = api.nvim_create_namespace('bindery_diagnostics')

-- The block holding buffer row (0-based), and its index.
function M.block_at(form, row)
  for i, block in ipairs(form.blocks or {}) do
    if row >= block.start and row < block.start + #block.lines then return block, i end
  end
end

function M.current_block(form)
  form = form.root or form
  if api.nvim_get_current_buf() ~= form.buf then return nil end
  return M.block_at(form, api.nvim_win_get_cursor(0)[1] - 1)
end

-- How many blocks at the start, and then at the end, old and new share (by
-- key): those are compared line by line; the ones between are rewritten.
local function common(old, new)
  if not old then return 0, 0 end
  local p = 0
  while p < #old and p < #new and old[p + 1].key == new[p + 1].key do p = p + 1 end
  local s = 0
  while s < #old - p and s < #new - p and old[#old - s].key == new[#new - s].key do s = s + 1 end
  return p, s
end

-- Each window's cursor as (block key, line in block, column), or a plain row
-- when the buffer's structure is not known to match the blocks: a cursor on
-- a row stays on that row wherever it moves.
local function save_cursors(form, structured)
  local saved = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == form.buf then
      local pos = api.nvim_win_get_cursor(win)
      local block
      if structured then block = M.block_at(form, pos[1] - 1) end
      saved[#saved + 1] = { win = win, pos = pos, key = block and block.key, offset = block and pos[1] - 1 - block.start }
    end
  end
  return saved
end

local function restore_cursors(form, saved)
  local count = api.nvim_buf_line_count(form.buf)
  local by_key = {}
  for _, block in ipairs(form.blocks) do by_key[block.key] = block end
  for _, s in ipairs(saved) do
    local row = s.pos[1]
    local block = s.key and by_key[s.key]
    if block then
      row = block.start + math.min(s.offset, #block.lines - 1) + 1
    end
    row = math.max(1, math.min(row, count))
    -- Neovim moves cursors itself as lines come and go; put each back.
    if api.nvim_win_is_valid(s.win) and not vim.deep_equal(api.nvim_win_get_cursor(s.win), { row, s.pos[2] }) then
      api.nvim_win_set_cursor(s.win, { row, s.pos[2] })
    end
  end
end

-- Whether ops fit a list block of n lines (the label line, then one line per
-- element), applied in order.
local function splices_fit(ops, n)
  for _, op in ipairs(ops) do
    if op.at + op.delete > n - 1 then return false end
    n = n + #op.insert - op.delete
  end
  return true
end

-- Draws the splices queued for a list block as line edits: each op replaces
-- the lines of the elements it deletes with lines for those it inserts, and
-- no other line is written. have: the block's lines in the buffer, which
-- start at row. Cursors on an element's line follow that element. Returns
-- the block's lines as they are now.
local function splice_block(form, ops, row, have, cursors, block)
  if not splices_fit(ops, #have) then return have end
  local lines = have
  for _, op in ipairs(ops) do
    local first, last = 1 + op.at, 1 + op.at + op.delete -- offsets in the block
    local inserted = {}
    for _, item in ipairs(op.insert) do inserted[#inserted + 1] = layout.item_line(item, block) end
    api.nvim_buf_set_lines(form.buf, row + first, row + last, false, inserted)
    local spliced = vim.list_slice(lines, 1, first)
    vim.list_extend(spliced, inserted)
    vim.list_extend(spliced, lines, last + 1)
    lines = spliced
    for _, s in ipairs(cursors) do
      if s.key == block.key and s.offset >= last then
        s.offset = s.offset + #inserted - op.delete
      elseif s.key == block.key and s.offset >= first then
        s.offset = first -- its element was deleted: where it was
      end
    end
  end
  return lines
end

-- The root form and its child sessions, all drawn in the root's buffer.
function M.sessions(form)
  local root = form.root or form
  local all = { root }
  for _, child in pairs(root.children or {}) do all[#all + 1] = child end
  return all
end

function M.render(form, full)
  form = form.root or form
  if form.closed or not api.nvim_buf_is_loaded(form.buf) then return end
  local edit = require('bindery.edit')
  local broken = edit.scan(form) == 'broken'
  full = full or broken
  local new = layout.build(form)
  local old = form.blocks
  -- Drawn whole or in part, a cursor stays on its member while the buffer matches the blocks.
  local cursors = save_cursors(form, old ~= nil and not broken)
  full = full or not old
  local splices = {}
  for _, session in ipairs(M.sessions(form)) do
    splices[session] = session.splices
    session.splices = {}
  end
  form.rendering = true
  vim.bo[form.buf].modifiable = true
  local ok, err = pcall(function()
    if full then
      local lines = {}
      for _, block in ipairs(new) do
        block.start = #lines
        vim.list_extend(lines, block.lines)
      end
      api.nvim_buf_set_lines(form.buf, 0, -1, false, lines)
      return
    end
    local current = api.nvim_buf_get_lines(form.buf, 0, -1, false)
    local row = 0
    -- A block old and new share: only its changed lines are written.
    local function keep(block, was)
      local have = vim.list_slice(current, was.start + 1, was.start + #was.lines)
      local owner = block.owner
      if block.writable and (edit.busy(owner, block.field.name) or form.damaged[block.key]) then
        block.lines = have -- the person is typing here: their text wins
      end
      local ops = block.field and splices[owner] and splices[owner][block.field.name]
      if ops and was.list and block.list then
        have = splice_block(form, ops, row, have, cursors, block)
      end
      if not vim.deep_equal(have, block.lines) then
        api.nvim_buf_set_lines(form.buf, row, row + #have, false, block.lines)
      end
      block.start = row
      row = row + #block.lines
    end
    local p, s = common(old, new)
    for i = 1, p do keep(new[i], old[i]) end
    -- The blocks between (rows inserted, removed, moved; a child shown or
    -- hidden): their lines are replaced at once.
    local from = p < #old and old[p + 1].start or (p > 0 and old[p].start + #old[p].lines or 0)
    local to = from
    for i = p + 1, #old - s do to = to + #old[i].lines end
    local lines = {}
    for i = p + 1, #new - s do
      new[i].start = row + #lines
      vim.list_extend(lines, new[i].lines)
    end
    if to > from or #lines > 0 then
      api.nvim_buf_set_lines(form.buf, row, row + (to - from), false, lines)
    end
    row = row + #lines
    for i = #new - s + 1, #new do keep(new[i], old[i - #new + #old]) end
  end)
  form.rendering = false
  vim.bo[form.buf].modifiable = not form.dead
  form.blocks = new
  if not ok then error(err) end
  restore_cursors(form, cursors)
  M.decorate(form)
end

local function spin(form)
  if form.closed or not api.nvim_buf_is_valid(form.buf) then return end
  api.nvim_buf_clear_namespace(form.buf, M.spin_ns, 0, -1)
  local running = false
  for _, block in ipairs(form.blocks) do
    if block.running then
      running = true
      local frame = layout.spinner[form.spin % #layout.spinner + 1]
      api.nvim_buf_set_extmark(form.buf, M.spin_ns, block.start, 0, {
        virt_text = { { frame, 'BinderyRunning' } },
        virt_text_pos = 'eol',
      })
    end
  end
  return running
end

function M.stop_spinner(form)
  if form.spin_timer then
    form.spin_timer:stop()
    form.spin_timer:close()
    form.spin_timer = nil
  end
end

-- Animates running commands with virtual text, so the buffer text (and the
-- person's cursor) stays still while it turns.
local function update_spinner(form)
  if spin(form) then
    if not form.spin_timer then
      form.spin_timer = compat.uv.new_timer()
      form.spin_timer:start(100, 100, vim.schedule_wrap(function()
        form.spin = form.spin + 1
        if not spin(form) then M.stop_spinner(form) end
      end))
    end
  else
    M.stop_spinner(form)
  end
end

-- Highlights columns from..to of a row (to = nil: the end of the line),
-- clamped to the line: a label being mangled in Insert mode can be shorter.
local function paint(form, line, row, from, to, group, priority)
  local last = math.min(to or #line, #line)
  api.nvim_buf_set_extmark(form.buf, M.ns, row, math.min(from, last), { end_col = last, hl_group = group, priority = priority })
end

function M.decorate(form)
  form = form.root or form
  if form.closed or not api.nvim_buf_is_loaded(form.buf) then return end
  api.nvim_buf_clear_namespace(form.buf, M.ns, 0, -1)
  local diagnostics = {}
  for _, block in ipairs(form.blocks) do
    local row = block.start
    if block.title then
      paint(form, block.lines[1], row, 0, nil, 'BinderyTitle')
    elseif block.status then
      for i, line in ipairs(block.lines) do paint(form, line, row + i - 1, 0, nil, 'BinderyDead') end
    elseif block.heading then
      paint(form, block.lines[1], row, 0, nil, 'BinderyLabel')
    elseif block.row then
      local line = block.lines[1]
      paint(form, line, row, 0, nil, 'BinderyReadOnly')
      for _, span in ipairs(block.spans) do
        paint(form, line, row, span.from, span.to, span.enabled and 'BinderyButton' or 'BinderyButtonDisabled', 4200)
      end
    elseif block.field then
      paint(form, block.lines[1], row, 0, #block.prefix, 'BinderyLabel')
      if not block.writable then
        for i = 1, #block.lines do
          local line = block.lines[i]
          paint(form, line, row + i - 1, i == 1 and #block.prefix or 0, nil, 'BinderyReadOnly')
          if i > 1 and block.row_commands then
            for _, span in ipairs(select(2, layout.buttons(block.row_commands, #block.indent + 4))) do
              paint(form, line, row + i - 1, span.from, span.to, 'BinderyButton', 4200)
            end
          end
        end
      end
      local message = block.owner.errors[block.field.name]
      if message then
        diagnostics[#diagnostics + 1] = {
          lnum = row, col = math.min(#block.prefix, #block.lines[1]), severity = vim.diagnostic.severity.ERROR,
          message = message, source = 'bindery',
        }
      end
    elseif block.command then
      local group = block.running and 'BinderyRunning'
        or (block.enabled and 'BinderyButton' or 'BinderyButtonDisabled')
      paint(form, block.lines[1], row, #block.indent, #block.indent + #block.command.label + 4, group)
      for i = 2, #block.lines do
        paint(form, block.lines[i], row + i - 1, 0, nil, block.result_ok and 'BinderyResult' or 'BinderyError')
      end
    end
  end
  vim.diagnostic.set(M.diag_ns, form.buf, diagnostics)
  update_spinner(form)
end

return M
