local T = require('helpers')

local api = vim.api

-- Records every change of buf's text as {first, last, new_last} (on_lines:
-- 0-based lines first..last replaced by first..new_last).
local function recorder(buf)
  local seen = {}
  api.nvim_buf_attach(buf, false, {
    on_lines = function(_, _, _, first, last, new_last)
      if seen.stop then return true end
      seen[#seen + 1] = { first, last, new_last }
    end,
  })
  return seen
end

local function clear(list)
  for i = #list, 1, -1 do list[i] = nil end
end

local function movies(...)
  local lines = { '== movieList ==', 'Movies:' }
  for _, movie in ipairs({ ... }) do
    lines[#lines + 1] = ('  - id: %s, fullTitle: %s, givenRating: notSeen'):format(movie[1], movie[2])
  end
  lines[#lines + 1] = 'Adding a movie: [ ]'
  return table.concat(lines, '\n')
end

T.test('splices: a saved movie inserts only its line in movieList; cursors stay; a misfit resyncs', function()
  vim.cmd('BinderyOpen movieList')
  local list = api.nvim_get_current_buf()
  local form = T.form()
  local list_win = api.nvim_get_current_win()
  vim.cmd('split') -- a second window on the list
  local other_win = api.nvim_get_current_win()
  T.goto_line('Adding a movie:')
  vim.cmd('vertical BinderyOpen addMovie')
  local add_win = api.nvim_get_current_win()
  T.eq(true, require('bindery.daemon').capabilities.splices, 'the daemon agreed to splices')
  -- What the daemon sends the list.
  local sent = {}
  local apply = form.apply
  form.apply = function(self, params)
    sent[#sent + 1] = params
    return apply(self, params)
  end
  local changes = recorder(list)
  local function save(title)
    api.nvim_set_current_win(add_win)
    T.goto_line('Title:')
    T.input('cc')
    T.type(title)
    T.input('<Esc>')
    T.goto_line('[ Save ]')
    T.input('<CR>')
    T.wait(function() return T.text():find('fullTitle: ' .. title .. ',', 1, true) end, 'the saved ' .. title)
  end

  -- The first movie comes whole (the list kept none of its elements): the
  -- member's block is rewritten.
  save('Alien')
  T.expect_buffer(movies({ 1, 'Alien' }), list)
  T.eq({ { 1, 2, 3 } }, changes, 'lines rewritten for the first movie')
  T.eq(nil, sent[#sent].splices, 'splices of the first movie')
  api.nvim_win_set_cursor(list_win, { 3, 12 }) -- in Alien's line
  T.eq({ 4, 0 }, api.nvim_win_get_cursor(other_win), 'the other window, on "Adding a movie"')

  clear(changes)
  save('Brazil')
  T.expect_buffer(movies({ 1, 'Alien' }, { 2, 'Brazil' }), list)
  T.eq({ movies = { ops = { { at = 1, delete = 0, insert = { { id = '2', fullTitle = 'Brazil', givenRating = 'notSeen' } } } }, length = 2 } },
    sent[#sent].splices, 'the splices sent')
  T.eq({ { 3, 3, 4 } }, changes, "only Brazil's line was written")
  T.eq({ 3, 12 }, api.nvim_win_get_cursor(list_win), 'the cursor in Alien')
  T.eq({ 5, 0 }, api.nvim_win_get_cursor(other_win), 'the other window, still on "Adding a movie"')

  clear(changes)
  save('Cube')
  T.expect_buffer(movies({ 1, 'Alien' }, { 2, 'Brazil' }, { 3, 'Cube' }), list)
  T.eq({ { 4, 4, 5 } }, changes, "only Cube's line was written")
  T.eq({ 3, 12 }, api.nvim_win_get_cursor(list_win), 'the cursor in Alien')
  T.eq({ 6, 0 }, api.nvim_win_get_cursor(other_win), 'the other window, still on "Adding a movie"')

  -- A delete and an insert in one didChange (the seed types only ever
  -- append, so this one is made here): one rewrite per op, and the cursor
  -- on Cube's line stays on Cube.
  api.nvim_win_set_cursor(list_win, { 5, 12 })
  clear(changes)
  form:apply({ session = form.session, revision = form.record.revision + 1, changes = {}, splices = { movies = {
    ops = {
      { at = 0, delete = 1, insert = {} },
      { at = 1, delete = 0, insert = { vim.json.decode('{"id":"9","fullTitle":"Dune","givenRating":"notSeen"}') } },
    },
    length = 3,
  } } })
  T.expect_buffer(movies({ 2, 'Brazil' }, { 9, 'Dune' }, { 3, 'Cube' }), list)
  T.eq({ { 2, 3, 2 }, { 3, 3, 4 } }, changes, 'the lines of the deleted and the inserted movie')
  T.eq({ 5, 12 }, api.nvim_win_get_cursor(list_win), 'the cursor in Cube')
  T.eq({ 6, 0 }, api.nvim_win_get_cursor(other_win), 'the other window, still on "Adding a movie"')
  -- Back to the daemon's list.
  form:resync()
  T.expect_buffer(movies({ 1, 'Alien' }, { 2, 'Brazil' }, { 3, 'Cube' }), list)

  -- The form's copy of the list is off by one: the next splice leaves it
  -- with a length other than the daemon's, and the whole state is fetched.
  form.state.movies[#form.state.movies + 1] = vim.json.decode('{"id":"x","fullTitle":"Bogus","givenRating":"poor"}')
  save('Dune')
  T.expect_buffer(movies({ 1, 'Alien' }, { 2, 'Brazil' }, { 3, 'Cube' }, { 4, 'Dune' }), list)
  T.truthy(vim.tbl_contains(require('bindery.log').lines,
    '[bindery] session ' .. form.session .. ': the splices of movies leave 5 elements, the daemon says 4; resynchronising'),
    'the log says why')
  T.eq(4, #form.state.movies, 'movies in the state')
  changes.stop = true
end)
