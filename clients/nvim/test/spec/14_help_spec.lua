local T = require('helpers')

-- :help bindery works from the README's own start (nvim --clean, the plugin
-- added to 'runtimepath', no :helptags run): doc/tags is committed, and must
-- be what :helptags makes of doc/bindery.txt today.
local plugin = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
local nvim = vim.v.progpath

T.test('help: doc/tags is what :helptags makes of doc/bindery.txt', function()
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy, 'p')
  vim.fn.writefile(vim.fn.readfile(plugin .. '/doc/bindery.txt', 'b'), copy .. '/bindery.txt', 'b')
  vim.cmd('helptags ' .. vim.fn.fnameescape(copy))
  T.eq(vim.fn.readfile(copy .. '/tags'), vim.fn.readfile(plugin .. '/doc/tags'),
    'doc/tags is stale: run  nvim --clean --headless -c "helptags clients/nvim/doc" -c q')
  vim.fn.delete(copy, 'rf')
end)

T.test("help: :help bindery opens it, started as the README says (nvim --clean --cmd 'set rtp+=…')", function()
  local out = vim.fn.system({ nvim, '--clean', '--headless', '--cmd', 'set rtp+=' .. plugin,
    '-c', 'help bindery',
    '-c', 'lua io.stdout:write(vim.fn.expand("%:t") .. "|" .. vim.fn.getline(".") .. "\\n")',
    '-c', 'qa!' })
  T.eq(0, vim.v.shell_error, out)
  T.eq('bindery.txt', vim.split(out, '|', { plain = true })[1], out)
  T.truthy(out:find('*bindery*', 1, true), out)
  for _, topic in ipairs({ ':BinderyOpen', 'g:bindery_cmd' }) do
    out = vim.fn.system({ nvim, '--clean', '--headless', '--cmd', 'set rtp+=' .. plugin,
      '-c', 'help ' .. topic, '-c', 'lua io.stdout:write(vim.fn.expand("%:t") .. "\\n")', '-c', 'qa!' })
    T.eq('bindery.txt\n', out, topic)
  end
end)
