-- Every module of the pure libraries has a unit test (shared/DESIGN.md:
-- "CMocka unit tests per module").
--
--   lua unit_check.lua NM MODULES... --tests TESTS...
--
-- MODULES: object files of the libraries that must be unit-tested, TESTS:
-- object files of the unit tests (tests/unit/test_*.c); an argument may
-- hold several, separated by ';' (CMake's $<TARGET_OBJECTS:...>). A module
-- counts as tested when a test object uses (nm: U) a symbol the module
-- defines (T, D, B, R, V, W), or uses a module that calls it, directly or
-- through others (a writer the test drives through its entry point). Prints
-- each module with the tests that reach it; exits 1 when a module has none,
-- 2 on bad input.

local nms = dofile((arg[0]:gsub("[^/]*$", "")) .. "nm_symbols.lua")
local name_of = nms.name_of
local nm, mods, tests = arg[1], {}, {}
local into = mods
for i = 2, #arg do
  if arg[i] == "--tests" then
    into = tests
  else
    nms.add(into, arg[i])
  end
end
if not nm or #mods == 0 or #tests == 0 then
  io.stderr:write("usage: lua unit_check.lua NM MODULE-OBJECTS... --tests TEST-OBJECTS...\n")
  os.exit(2)
end

local defs, uses, owner = {}, {}, {}
table.sort(mods, function(a, b) return name_of(a) < name_of(b) end)
for _, m in ipairs(mods) do
  local n = name_of(m)
  defs[n], uses[n] = nms.read(nm, m, "unit_check")
  for sym in pairs(defs[n]) do owner[sym] = n end
end

-- reach[module][test] = "" (the test calls it) or the module it goes
-- through (the test calls a module that calls it, directly or not)
local reach = {}
for _, m in ipairs(mods) do reach[name_of(m)] = {} end
local function spread(mod, test, via)
  if reach[mod][test] then return end
  reach[mod][test] = via
  for sym in pairs(uses[mod]) do
    local callee = owner[sym]
    if callee and callee ~= mod then spread(callee, test, via ~= "" and via or mod) end
  end
end
for _, t in ipairs(tests) do
  local tn = name_of(t)
  local direct = {}
  local _, tuses = nms.read(nm, t, "unit_check")
  for sym in pairs(tuses) do
    if owner[sym] then direct[owner[sym]] = true end
  end
  for mod in pairs(direct) do reach[mod][tn] = "" end
  for mod in pairs(direct) do
    for sym in pairs(uses[mod]) do
      local callee = owner[sym]
      if callee and callee ~= mod then spread(callee, tn, mod) end
    end
  end
end

local missing = {}
for _, m in ipairs(mods) do
  local n, list = name_of(m), {}
  for t, via in pairs(reach[n]) do
    list[#list + 1] = via == "" and t or (t .. " (through " .. via .. ")")
  end
  table.sort(list)
  print(string.format("%-18s %s", n, #list > 0 and table.concat(list, ", ") or "NO UNIT TEST"))
  if #list == 0 then missing[#missing + 1] = n end
end
if #missing > 0 then
  print("unit_check: no unit test reaches " .. table.concat(missing, ", ") ..
    " (add tests/unit/test_<module>.c)")
  os.exit(1)
end
print(string.format("unit_check: ok, %d modules, each reached by a unit test", #mods))
