local T = require('helpers')

local layout = require('bindery.layout')

-- A form's "!! …" line (a build error from bindery-dev, a dead daemon) is
-- broken between words to fit its window, so that with 'nowrap' nothing is
-- cut off and with 'wrap' no word is split.

T.test('status lines: broken between words, the next lines indented under the text', function()
  T.eq({ '!! build failed: A.swift:7:', '   expected expression after', "   '? ... :' (:copen)" },
    layout.status_lines("build failed: A.swift:7: expected expression after '? ... :' (:copen)", 30))
  T.eq({ '!! short' }, layout.status_lines('short', 30))
  T.eq({ '!! a', '   https://example.com/a/very/long/address', '   b' },
    layout.status_lines('a https://example.com/a/very/long/address b', 20), 'a word longer than a line')
end)

T.test("status lines: a build error in a 50-column window with 'nowrap' is whole, its location first", function()
  local devloop = require('bindery.devloop')
  vim.cmd('vertical BinderyOpen email')
  local form = T.form()
  T.wait(function() return T.text():find('Email:', 1, true) end, 'the form')
  vim.cmd('vertical resize 50')
  vim.wo.wrap = false
  local conn = require('bindery.daemon').conn
  devloop.notification(conn, 'daemon/buildFailed', { diagnostics = { { file = '/home/ada/greeter/Sources/greeter/GreetingViewModel.swift',
    line = 7, column = 54, severity = 'error', message = "expected expression after '? ... :' in ternary expression" } } })
  T.expect_buffer(table.concat({
    '== email ==',
    '!! build failed: GreetingViewModel.swift:7:',
    "   expected expression after '? ... :' in ternary",
    '   expression (:copen)',
    'Email: ',
    'Valid: false',
    'Validation message: Email is invalid' }, '\n'))
  for _, line in ipairs(vim.api.nvim_buf_get_lines(form.buf, 0, -1, false)) do
    T.truthy(vim.fn.strdisplaywidth(line) < 50, 'wider than the window: ' .. line)
  end
  -- The next successful build takes it away.
  devloop.notification(conn, 'daemon/reloaded', { buildMs = 1, restartMs = 1, migrateMs = 0, types = {} })
  T.expect_buffer(table.concat({ '== email ==', 'Email: ', 'Valid: false', 'Validation message: Email is invalid' }, '\n'))
  vim.fn.setqflist({}, 'r')
  vim.cmd('BinderyClose')
  vim.cmd('only')
end)
