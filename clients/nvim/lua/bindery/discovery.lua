-- Finding the binderyd command: g:bindery_cmd, $BINDERYD, PATH, ~/.local/bin
-- (where ./scripts/install puts it), then this repository's build
-- (clients/nvim/../../.build), release before debug.
local settings = require('bindery.settings')
local uv = require('bindery.compat').uv

local M = {}

-- The repository root, from this file's own path (clients/nvim/lua/bindery/).
local function repository_root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h:h:h')
end

function M.build_candidates()
  local root = repository_root()
  return { root .. '/.build/release/binderyd', root .. '/.build/debug/binderyd' }
end

-- How to give arguments, when a program looks like a command line.
local function hint(program)
  if not program:find(' ', 1, true) then return '' end
  return '; a program with arguments is a list, like '
    .. vim.fn.string(vim.split(program, '%s+', { trimempty = true }))
end

-- The absolute path of program, which `source` named, or nil and why: a name
-- without a / is looked up on $PATH, then in ~/.local/bin (where
-- ./scripts/install puts Bindery's programs, often not yet on a new user's
-- PATH). Checked here, as a program that cannot run would only show as a
-- failed spawn.
function M.program(program, source)
  if not program:find('/', 1, true) then
    local found = vim.fn.exepath(program)
    if found ~= '' then return found end
    local installed = (vim.env.HOME or '') .. '/.local/bin/' .. program
    if vim.fn.executable(installed) == 1 then return installed end
    return nil, ('%s: no program %s on $PATH or in ~/.local/bin%s'):format(
      source, vim.fn.string(program), hint(program))
  end
  local path = vim.fn.fnamemodify(program, ':p'):gsub('(.)/$', '%1')
  local stat = uv.fs_stat(path)
  if not stat then
    return nil, ('%s: %s does not exist%s'):format(source, path, hint(program))
  elseif stat.type == 'directory' then
    return nil, ('%s: %s is a directory, not a program'):format(source, path)
  elseif vim.fn.executable(path) ~= 1 then
    return nil, ('%s: %s is not executable'):format(source, path)
  end
  return path
end

-- The daemon found without g:bindery_cmd, or nil and the places tried.
local function found()
  local build = M.build_candidates()
  for _, path in ipairs({ vim.env.BINDERYD or '', vim.fn.exepath('binderyd'),
    vim.fn.expand('~/.local/bin/binderyd'), build[1], build[2] }) do
    if path ~= '' and vim.fn.executable(path) == 1 then return { vim.fn.fnamemodify(path, ':p') } end
  end
  return nil, ('binderyd not found (tried g:bindery_cmd, $BINDERYD, PATH, ~/.local/bin, %s, %s): '
    .. 'run ./scripts/install in the Bindery repository'):format(build[1], build[2])
end

-- Returns the argv list to spawn, or nil and why.
function M.command()
  local cmd, why = settings.cmd()
  if why then return nil, why end
  local argv
  if cmd then
    local program
    program, why = M.program(cmd[1], 'g:bindery_cmd')
    if not program then return nil, why end
    argv = vim.list_extend({ program }, cmd, 2)
  else
    argv, why = found()
    if not argv then return nil, why end
  end
  local extra
  extra, why = settings.args()
  if not extra then return nil, why end
  return vim.list_extend(argv, extra)
end

return M
