-- The few Lua APIs whose names changed between Neovim 0.7 and current
-- releases: use the new name where it exists, so nothing deprecated runs.
return {
  uv = vim.uv or vim.loop,
  islist = vim.islist or vim.tbl_islist,
}
