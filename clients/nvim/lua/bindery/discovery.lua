-- Finding the binderyd command: g:bindery_cmd, $BINDERYD, PATH, ~/.local/bin
-- (where ./scripts/install puts it), then this repository's build
-- (clients/nvim/../../.build), release before debug.
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

-- Returns the argv list to spawn, or nil and the places tried.
function M.command()
  local cmd, argv = vim.g.bindery_cmd, nil
  if type(cmd) == 'string' and cmd ~= '' then
    argv = { cmd }
  elseif type(cmd) == 'table' and #cmd > 0 then
    argv = vim.deepcopy(cmd)
  else
    local tried = {}
    local function try(path, what)
      if path and path ~= '' and vim.fn.executable(path) == 1 then
        return { vim.fn.fnamemodify(path, ':p') }
      end
      tried[#tried + 1] = what
    end
    local build = M.build_candidates()
    argv = try(vim.env.BINDERYD, '$BINDERYD')
      or try(vim.fn.exepath('binderyd'), 'PATH')
      or try(vim.fn.expand('~/.local/bin/binderyd'), '~/.local/bin')
      or try(build[1], build[1])
      or try(build[2], build[2])
    if not argv then
      return nil, 'binderyd not found (tried g:bindery_cmd, ' .. table.concat(tried, ', ')
        .. '): run ./scripts/install in the Bindery repository'
    end
  end
  local extra = vim.g.bindery_args
  if type(extra) == 'string' then extra = { extra } end
  vim.list_extend(argv, extra or {})
  return argv
end

return M
