-- The REVPROF_* variables that librevprof knows (env_known in
-- revprof/rp_config.c, which warns about any other REVPROF_* name in the
-- environment) are the README's "Environment variables" table, and every
-- "REVPROF_NAME" string in the C sources of the given folders is one of
-- them: a variable added to the code without the table (or the table
-- without the code's list) fails here.
--
--   lua env_check.lua README.md revprof/rp_config.c DIR...
--
-- Prints each difference and exits 1; 2 on bad input.

local function slurp(path)
  local f = io.open(path, "r")
  if not f then
    io.stderr:write("env_check: cannot read " .. path .. "\n")
    os.exit(2)
  end
  local s = f:read("a")
  f:close()
  return s
end

local readme, config = arg[1], arg[2]
if not readme or not config then
  io.stderr:write("usage: lua env_check.lua README.md rp_config.c DIR...\n")
  os.exit(2)
end

-- the README's table: rows "| `REVPROF_A`, `REVPROF_B` | who | what |"
local documented, in_section = {}, false
for line in slurp(readme):gmatch("[^\n]*") do
  if line:match("^## ") then in_section = line == "## Environment variables" end
  if in_section and line:match("^| `REVPROF_") then
    local cell = line:match("^|([^|]*)|")
    for name in cell:gmatch("`(REVPROF_[A-Z0-9_]+)`") do documented[name] = true end
  end
end

-- the code's list
local list = slurp(config):match("env_known%[%]%s*=%s*(%b{})")
if not list then
  io.stderr:write("env_check: no env_known[] in " .. config .. "\n")
  os.exit(2)
end
local known = {}
for name in list:gmatch('"(REVPROF_[A-Z0-9_]+)"') do known[name] = true end

local bad = 0
local function say(msg) print(msg); bad = bad + 1 end
local function sorted(t)
  local a = {}
  for k in pairs(t) do a[#a + 1] = k end
  table.sort(a)
  return a
end
if not next(documented) then say(readme .. ": no REVPROF_* row in its Environment variables table") end
for _, n in ipairs(sorted(documented)) do
  if not known[n] then say(n .. ": in the README's table, not in env_known (" .. config .. ")") end
end
for _, n in ipairs(sorted(known)) do
  if not documented[n] then say(n .. ": in env_known, not in the README's table") end
end

-- every quoted REVPROF_NAME in the sources
for i = 3, #arg do
  local dir = arg[i]
  local ls = io.popen("ls '" .. dir:gsub("'", "'\\''") .. "'")
  for file in ls:lines() do
    if file:match("%.c$") or file:match("%.h$") or file:match("%.c%.in$") then
      local path = dir .. "/" .. file
      for name in slurp(path):gmatch('"(REVPROF_[A-Z0-9_]+)"') do
        if not known[name] then say(path .. ": \"" .. name .. "\" is not in env_known") end
      end
    end
  end
  ls:close()
end
if bad > 0 then os.exit(1) end
print("env_check: ok")
