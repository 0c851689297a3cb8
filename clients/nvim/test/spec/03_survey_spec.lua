local T = require('helpers')

local function state()
  return T.request('session/state', { session = T.form().session }).state
end

T.test('survey: nulls, numbers, a boolean toggle and multi-line output', function()
  vim.cmd('BinderyOpen survey')
  T.expect_buffer([[
    == survey ==
    Name: 
    Company: 
    Years of experience: 
    Current employer?: [ ]
    Approximate salary: 
    Comments: 
    Experience: --
    Salary: --
    Summary: Name: --
             Company: --
             Experience: --
             Current Employer?: NO
             approx Salary: --
             Comments: --]])
  T.goto_line('Name:')
  T.input('A')
  T.type('Ada')
  T.input('<Esc>')
  T.goto_line('Years of experience:')
  T.input('A')
  T.type('3.5')
  T.input('<Esc>')
  T.goto_line('Current employer?:')
  T.input('<CR>')
  T.goto_line('Approximate salary:')
  T.input('A')
  T.type('45000')
  T.input('<Esc>')
  T.expect_buffer([[
    == survey ==
    Name: Ada
    Company: 
    Years of experience: 3.5
    Current employer?: [x]
    Approximate salary: 45000
    Comments: 
    Experience: 3.5 yrs
    Salary: 45.0k
    Summary: Name: Ada
             Company: --
             Experience: 3.5 yrs
             Current Employer?: YES
             approx Salary: 45.0k
             Comments: --]])
  T.eq(true, state().isCurrentEmployer, 'isCurrentEmployer in the daemon')
  -- <Space> toggles back.
  T.goto_line('Current employer?:')
  T.input('<Space>')
  T.wait(function() return state().isCurrentEmployer == false end, 'the toggle to reach the daemon')
  -- Emptying a nullable field sends null.
  T.goto_line('Name:')
  T.input('cc<Esc>')
  T.wait(function() return state().name == vim.NIL end, 'name to become null')
  T.expect_buffer([[
    == survey ==
    Name: 
    Company: 
    Years of experience: 3.5
    Current employer?: [ ]
    Approximate salary: 45000
    Comments: 
    Experience: 3.5 yrs
    Salary: 45.0k
    Summary: Name: --
             Company: --
             Experience: 3.5 yrs
             Current Employer?: NO
             approx Salary: 45.0k
             Comments: --]])
end)

T.test('survey: a non-number is refused by the daemon, on its line, and nothing is written', function()
  vim.cmd('BinderyOpen survey')
  T.goto_line('Years of experience:')
  T.input('A')
  T.type('3x')
  T.input('<Esc>')
  local row = T.row('Years of experience:')
  local diagnostics = T.wait(function()
    local found = vim.diagnostic.get(0)
    return #found > 0 and found
  end, 'a diagnostic')
  T.eq(1, #diagnostics, 'diagnostics')
  T.eq(row - 1, diagnostics[1].lnum, 'diagnostic line')
  T.eq('expected a number', diagnostics[1].message, 'the daemon did not read it')
  T.eq(vim.NIL, state().yearsOfExperience, 'the daemon value')
  T.expect_buffer([[
    == survey ==
    Name: 
    Company: 
    Years of experience: 3x
    Current employer?: [ ]
    Approximate salary: 
    Comments: 
    Experience: --
    Salary: --
    Summary: Name: --
             Company: --
             Experience: --
             Current Employer?: NO
             approx Salary: --
             Comments: --]])
  -- Fixing it clears the error and sends the number.
  T.input('x')
  T.wait(function() return #vim.diagnostic.get(0) == 0 end, 'the diagnostic to clear')
  T.wait(function() return state().yearsOfExperience == 3 end, 'the number in the daemon')
  T.wait(function() return T.text():find('Experience: 3.0 yrs', 1, true) end, 'Experience to update')
end)

T.test("survey: the daemon's wrong-type error shows on the line", function()
  vim.cmd('BinderyOpen survey')
  T.goto_line('Approximate salary:')
  T.input('A')
  T.type('1e39') -- a number, but not a 32-bit float: the daemon refuses it
  T.input('<Esc>')
  local diagnostics = T.wait(function()
    local found = vim.diagnostic.get(0)
    return #found > 0 and found
  end, 'a diagnostic')
  T.eq(T.row('Approximate salary:') - 1, diagnostics[1].lnum, 'diagnostic line')
  T.eq('expected a number, or nothing', diagnostics[1].message, 'what the daemon expected')
end)

T.test('survey: a value the model stores differently comes back once the person leaves the line', function()
  vim.cmd('BinderyOpen survey')
  T.goto_line('Approximate salary:')
  T.input('A')
  T.type('0.1234567891') -- the model keeps a 32-bit float: 0.12345679
  T.wait(function() return state().approxSalary == 0.12345679 end, 'the stored value')
  T.wait(function() return T.text():find('Salary: 0.00012345679k', 1, true) end, 'the outputs')
  T.eq('Approximate salary: 0.1234567891', vim.api.nvim_get_current_line(), 'the line while typing')
  T.input('<Esc>')
  T.wait(function() return vim.api.nvim_get_current_line() == 'Approximate salary: 0.12345679' end,
    'the stored value on the line')
end)
