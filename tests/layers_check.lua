-- No call loop among librevprof's modules (docs/design.md, "Layers").
--
--   lua layers_check.lua NM OBJECTS
--
-- OBJECTS: the object files of the library, separated by ';' (CMake's
-- $<TARGET_OBJECTS:...>) or given as several arguments. Each object file is
-- a module (its name without .c.o / .o). Module A calls B when A uses a
-- symbol B defines (nm: U in A; T, D, B, R, V or W in B). A hook registered
-- through a table at init is a pointer the caller never names, so it makes
-- no edge. Prints the graph, then every loop found (the modules of a
-- strongly connected component, with the symbols of its edges), and exits 1
-- when there is one, 2 on bad input.

local nms = dofile((arg[0]:gsub("[^/]*$", "")) .. "nm_symbols.lua")
local nm, objs = arg[1], {}
for i = 2, #arg do nms.add(objs, arg[i]) end
if not nm or #objs == 0 then
  io.stderr:write("usage: lua layers_check.lua NM OBJECT...\n")
  os.exit(2)
end

local defs, uses, names, owner = {}, {}, {}, {}
for _, o in ipairs(objs) do
  local m = nms.name_of(o)
  if defs[m] then
    io.stderr:write("layers_check: two object files named ", m, "\n")
    os.exit(2)
  end
  names[#names + 1] = m
  defs[m], uses[m] = nms.read(nm, o, "layers_check")
  for s in pairs(defs[m]) do owner[s] = m end
end
table.sort(names)
local sorted_keys = nms.sorted_keys

-- edges[a][b] = list of symbols of b that a uses
local edges = {}
for _, a in ipairs(names) do
  edges[a] = {}
  for s in pairs(uses[a]) do
    local b = owner[s]
    if b and b ~= a then
      edges[a][b] = edges[a][b] or {}
      table.insert(edges[a][b], s)
    end
  end
end

for _, a in ipairs(names) do
  local to = sorted_keys(edges[a])
  print(string.format("%-16s -> %s", a, #to > 0 and table.concat(to, " ") or "(nothing)"))
end

-- Tarjan's strongly connected components
local index, low, onstack, stack, nexti, sccs = {}, {}, {}, {}, 0, {}
local function visit(v)
  index[v], low[v] = nexti, nexti
  nexti = nexti + 1
  stack[#stack + 1] = v
  onstack[v] = true
  for _, w in ipairs(sorted_keys(edges[v])) do
    if not index[w] then
      visit(w)
      low[v] = math.min(low[v], low[w])
    elseif onstack[w] then
      low[v] = math.min(low[v], index[w])
    end
  end
  if low[v] == index[v] then
    local c = {}
    repeat
      local w = table.remove(stack)
      onstack[w] = false
      c[#c + 1] = w
    until w == v
    if #c > 1 then
      table.sort(c)
      sccs[#sccs + 1] = c
    end
  end
end
for _, v in ipairs(names) do
  if not index[v] then visit(v) end
end

if #sccs == 0 then
  print(string.format("layers_check: ok, %d modules, no call loop", #names))
  os.exit(0)
end
for _, c in ipairs(sccs) do
  local inside = {}
  for _, m in ipairs(c) do inside[m] = true end
  print("layers_check: call loop among " .. table.concat(c, ", ") .. ":")
  for _, a in ipairs(c) do
    for _, b in ipairs(sorted_keys(edges[a])) do
      if inside[b] then
        local s = edges[a][b]
        table.sort(s)
        print(string.format("  %s -> %s: %s", a, b, table.concat(s, " ")))
      end
    end
  end
end
os.exit(1)
