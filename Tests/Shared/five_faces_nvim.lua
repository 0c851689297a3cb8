-- The Neovim face of test_five_faces.py, run by `nvim --headless` with the plugin on its
-- runtimepath: opens the keyed form through `binderyd --remote auto` and appends to $FIVE_OUT, one
-- JSON object a line, every text its buffer shows ({"text": ...}) and every message the plugin
-- gives ({"message": ...}). The test reads that file; it ends this editor with a signal.
local out = assert(io.open(assert(vim.env.FIVE_OUT), 'a'))
local function say(object)
  out:write(vim.json.encode(object) .. '\n')
  out:flush()
end

vim.notify = function(message) say({ message = message }) end
vim.g.bindery_cmd = { assert(vim.env.BINDERYD), '--remote', 'auto' }

local ok, err = pcall(vim.cmd, ('BinderyOpen %s %s'):format(vim.env.FIVE_TYPE, vim.env.FIVE_KEY))
if not ok then say({ message = 'BinderyOpen failed: ' .. tostring(err) }) end
local buf = vim.api.nvim_get_current_buf()

-- Every distinct text, taken after each change to the buffer and on a timer besides (a form may
-- draw without a line event the editor coalesces).
local last
local function look()
  if not vim.api.nvim_buf_is_valid(buf) then return end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  if text ~= last then
    last = text
    say({ text = text })
  end
end
vim.api.nvim_buf_attach(buf, false, { on_lines = function() vim.schedule(look) end })
vim.fn.timer_start(50, look, { ['repeat'] = -1 })
look()
