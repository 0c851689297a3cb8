-- The daemon's stderr and the plugin's own notes, kept in memory and shown in
-- a scratch buffer by :BinderyLog, so nothing the daemon prints reaches a form.
local M = { lines = {} }

local MAX_LINES = 5000
local partial = '' -- stderr arrives in chunks that may split a line
local buf

local function add(lines)
  vim.list_extend(M.lines, lines)
  local excess = #M.lines - MAX_LINES
  if excess > 0 then
    M.lines = vim.list_slice(M.lines, excess + 1)
  end
  if buf and vim.api.nvim_buf_is_valid(buf) then
    vim.bo[buf].modifiable = true
    if vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == '' then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    end
    vim.bo[buf].modifiable = false
  end
end

-- A chunk of the daemon's stderr.
function M.stderr(chunk)
  local text = partial .. chunk
  local lines = vim.split(text, '\n', { plain = true })
  partial = table.remove(lines)
  if #lines > 0 then add(lines) end
end

-- A note from the plugin itself.
function M.note(text)
  add(vim.split('[bindery] ' .. text, '\n', { plain = true }))
end

-- Shows the log in a split, following its end.
function M.open()
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'bindery://log')
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].modifiable = false
    local lines = vim.deepcopy(M.lines)
    if partial ~= '' then lines[#lines + 1] = partial end
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
    win = vim.api.nvim_get_current_win()
  else
    vim.api.nvim_set_current_win(win)
  end
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  return buf
end

return M
