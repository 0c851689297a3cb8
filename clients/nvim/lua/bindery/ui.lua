-- Messages to the person, one prefix and one place, so tests can catch them.
local M = {}

function M.info(msg)
  vim.notify('Bindery: ' .. msg, vim.log.levels.INFO)
end

function M.warn(msg)
  vim.notify('Bindery: ' .. msg, vim.log.levels.WARN)
end

function M.error(msg)
  vim.notify('Bindery: ' .. msg, vim.log.levels.ERROR)
end

return M
