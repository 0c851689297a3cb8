-- Content-Length framing, as LSP does it. A pipe read can end inside a header
-- or a body, or hold several messages: the decoder keeps what is left over.
local M = {}

function M.encode(body)
  return ('Content-Length: %d\r\n\r\n%s'):format(#body, body)
end

-- Returns feed(chunk) -> bodies, problems: the complete message bodies the
-- bytes so far finish, and a note for each header block that was skipped.
function M.decoder()
  local buffer = ''
  return function(chunk)
    buffer = buffer .. chunk
    local bodies, problems = {}, {}
    while true do
      local head_end, body_start = buffer:find('\r?\n\r?\n')
      if not head_end then break end
      local header = buffer:sub(1, head_end - 1)
      local length = tonumber(header:lower():match('content%-length:%s*(%d+)'))
      if not length then
        -- Unreadable header: drop it and resynchronise on the next one.
        problems[#problems + 1] = 'no Content-Length in header ' .. vim.inspect(header)
        buffer = buffer:sub(body_start + 1)
      elseif #buffer - body_start < length then
        break
      else
        bodies[#bodies + 1] = buffer:sub(body_start + 1, body_start + length)
        buffer = buffer:sub(body_start + length + 1)
      end
    end
    return bodies, problems
  end
end

return M
