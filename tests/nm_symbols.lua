-- What object files define and use, read with nm: shared by
-- layers_check.lua and unit_check.lua (loaded with dofile).
local M = {}

-- Module name of an object file: its name without .c.o / .o.
function M.name_of(path)
  return (path:match("([^/]+)$"):gsub("%.c%.o$", ""):gsub("%.o$", ""))
end

-- Appends the object files of arg (one path, or several separated by ';'
-- as CMake's $<TARGET_OBJECTS:...> gives them) to list.
function M.add(list, arg)
  for o in arg:gmatch("[^;]+") do list[#list + 1] = o end
end

-- The sets of symbols obj defines (T D B R V W) and uses (U). Exits 2,
-- naming who and obj, when nm cannot read it.
function M.read(nm, obj, who)
  local p = io.popen(nm .. " '" .. obj:gsub("'", "'\\''") .. "' 2>&1")
  local defs, uses, n = {}, {}, 0
  for line in p:lines() do
    local kind, sym = line:match("^%x*%s+(%a)%s+(%S+)$")
    if kind == "U" then
      uses[sym] = true
    elseif kind and kind:match("[TDBRVW]") then
      defs[sym] = true
    end
    n = n + 1
  end
  if not p:close() or n == 0 then
    io.stderr:write(who, ": ", nm, " could not read ", obj, "\n")
    os.exit(2)
  end
  return defs, uses
end

-- Sorted keys of a table.
function M.sorted_keys(t)
  local k = {}
  for x in pairs(t) do k[#k + 1] = x end
  table.sort(k)
  return k
end

return M
