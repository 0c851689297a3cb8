-- Bindery: forms for view models hosted by binderyd. Defines the commands;
-- the daemon starts on first use (see :help bindery).
if vim.g.loaded_bindery then return end
vim.g.loaded_bindery = true

local function highlights()
  for group, target in pairs({
    BinderyTitle = 'Title',
    BinderyLabel = 'Identifier',
    BinderyReadOnly = 'Comment',
    BinderyButton = 'Function',
    BinderyButtonDisabled = 'NonText',
    BinderyRunning = 'WarningMsg',
    BinderyResult = 'String',
    BinderyError = 'ErrorMsg',
    BinderyDead = 'ErrorMsg',
  }) do
    vim.cmd(('highlight default link %s %s'):format(group, target))
  end
end
highlights()

local group = vim.api.nvim_create_augroup('bindery', { clear = true })
vim.api.nvim_create_autocmd('ColorScheme', { group = group, callback = highlights })
vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = function()
  -- Only a daemon that was started needs stopping: do not load it otherwise.
  local daemon = package.loaded['bindery.daemon']
  if daemon then daemon.stop() end
end })

local command = vim.api.nvim_create_user_command

command('BinderyOpen', function(opts)
  local bindery = require('bindery')
  local type, key, args = bindery.parse_open(opts.args)
  if not type then
    require('bindery.ui').error(key)
    return
  end
  bindery.open(type, { key = key, args = args, mods = opts.mods })
end, {
  nargs = '+',
  complete = function(...) return require('bindery').complete(...) end,
  desc = 'Open a Bindery form: {type} [{key}] [{JSON args}]',
})

command('BinderyClose', function() require('bindery').close() end, { desc = 'Close this Bindery form and its session' })
command('BinderyCancel', function() require('bindery').cancel() end, { desc = 'Cancel the running command of this form' })
command('BinderyLog', function() require('bindery').log() end, { desc = "Show binderyd's log" })
command('BinderyRecord', function(opts) require('bindery.record').command(opts.args) end, {
  nargs = '+', complete = 'file', desc = 'Record the exchange with the daemon as a transcript: start FILE | stop [FILE]',
})
command('BinderyAdvanceClock', function(opts) require('bindery.clock').command(opts.args) end, { nargs = 1, desc = 'Move a --deterministic daemon\'s virtual clock by {ms}' })
