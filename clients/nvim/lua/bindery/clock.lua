-- :BinderyAdvanceClock {ms}: moves the virtual clock of a daemon run with --deterministic
-- (clock/advance, protocol.md "Deterministic mode"), so that timers, debounces and async commands
-- move on in the forms, and a recording (:BinderyRecord) holds the advance and replays exactly.
-- On the real clock the daemon refuses (-32019), and the message says so.
local M = {}

function M.command(args)
  local ui = require('bindery.ui')
  local ms = tonumber(vim.trim(args))
  if not ms or ms < 0 or ms ~= math.floor(ms) then
    return ui.error('usage: :BinderyAdvanceClock {ms} (a whole number of milliseconds, 0 or more)')
  end
  local conn, why = require('bindery.daemon').ensure()
  if not conn then return ui.error(why) end
  -- Answered once everything due on the way has run: the forms have their changes by then.
  conn:request('clock/advance', { ms = ms }, function(err, result)
    if err then return ui.error('clock/advance: ' .. err.message) end
    ui.info(('virtual clock at %d ms'):format(result.now))
  end)
end

return M
