local T = require('helpers')

T.test('movies: addMovie saves into movieList, side by side, live', function()
  vim.cmd('BinderyOpen movieList')
  local list = vim.api.nvim_get_current_buf()
  local list_win = vim.api.nvim_get_current_win()
  T.goto_line('Adding a movie:')
  vim.cmd('vertical BinderyOpen addMovie')
  local add = vim.api.nvim_get_current_buf()
  T.eq(2, #vim.api.nvim_tabpage_list_wins(0), 'windows')
  T.expect_buffer([=[
    == addMovie ==
    Title: 
    Rating: notSeen
    Can save: false

    [ Save ]]=])
  T.goto_line('Title:')
  T.input('A')
  T.type('Alien')
  T.input('<Esc>')
  -- The enum is picked from vim.ui.select (stubbed: choose "good").
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = { items = items, prompt = opts.prompt }
    on_choice('good')
  end
  T.goto_line('Rating:')
  T.input('<CR>')
  T.eq({ items = { 'notSeen', 'terrible', 'poor', 'decent', 'good', 'excellent' }, prompt = 'Rating:' }, offered, 'offered')
  T.expect_buffer([=[
    == addMovie ==
    Title: Alien
    Rating: good
    Can save: true

    [ Save ]]=])
  T.goto_line('[ Save ]')
  T.input('<CR>')
  T.expect_buffer([=[
    == addMovie ==
    Title: Alien
    Rating: good
    Can save: true

    [ Save ]
      → id: 1, fullTitle: Alien, givenRating: good]=])
  T.expect_buffer([=[
    == movieList ==
    Movies:
      - id: 1, fullTitle: Alien, givenRating: good
    Adding a movie: [ ]
  ]=], list)
  -- The list window's cursor stayed on its member as a line was added above.
  T.eq(4, vim.api.nvim_win_get_cursor(list_win)[1], 'cursor row in the list')
  T.goto_line('Title:')
  T.input('cc')
  T.type('Heat')
  T.input('<Esc>')
  T.goto_line('[ Save ]')
  T.input('<CR>')
  T.expect_buffer([=[
    == movieList ==
    Movies:
      - id: 1, fullTitle: Alien, givenRating: good
      - id: 2, fullTitle: Heat, givenRating: good
    Adding a movie: [ ]
  ]=], list)
  T.eq(5, vim.api.nvim_win_get_cursor(list_win)[1], 'cursor row in the list')
  -- A boolean field of the list toggles.
  vim.api.nvim_set_current_win(list_win)
  T.input('<CR>')
  T.expect_buffer([=[
    == movieList ==
    Movies:
      - id: 1, fullTitle: Alien, givenRating: good
      - id: 2, fullTitle: Heat, givenRating: good
    Adding a movie: [x]
  ]=], list)
  T.eq(true, T.request('session/state', { session = T.form(list).session }).state.isPresentingAddMovie, 'in the daemon')
  T.eq(add ~= list, true, 'two buffers')
end)

T.test('movies: an empty title disables Save', function()
  vim.cmd('BinderyOpen addMovie')
  T.goto_line('Title:')
  T.input('A')
  T.type('X')
  T.input('<Esc>')
  T.expect_buffer([=[
    == addMovie ==
    Title: X
    Rating: notSeen
    Can save: true

    [ Save ]]=])
  T.input('cc<Esc>')
  T.expect_buffer([=[
    == addMovie ==
    Title: 
    Rating: notSeen
    Can save: false

    [ Save ]]=])
  T.goto_line('[ Save ]')
  T.input('<CR>')
  T.expect_message('Save is disabled')
end)
