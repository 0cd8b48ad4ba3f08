-- Expands wrappers.spec with the template rp_wrappers.c.in into the MPI
-- wrappers of librevprof and the table of wrapper ids (build time only).
-- With FTEMPLATE and OUT_F.c, also the Fortran bindings (mpif.h and
-- `use mpi`: mpi_send_, mpi_send__, mpi_send, MPI_SEND) of every function
-- the spec declares, converting handles with the standard *_f2c/*_c2f.
-- usage: lua5.4 gen_wrappers.lua SPEC TEMPLATE OUT.c OUT_IDS.h [FTEMPLATE OUT_F.c]
local spec_path, tmpl_path, out_c, out_h, ftmpl_path, out_f = ...
if not out_h or (ftmpl_path and not out_f) then
  io.stderr:write("usage: gen_wrappers.lua SPEC TEMPLATE OUT.c OUT_IDS.h [FTEMPLATE OUT_F.c]\n")
  os.exit(2)
end

local function fail(where, msg)
  io.stderr:write(where .. ": " .. msg .. "\n")
  os.exit(1)
end

local function read(path)
  local f, err = io.open(path, "r")
  if not f then fail(path, err) end
  local s = f:read("a")
  f:close()
  return s
end

local function basename(p) return (p:gsub(".*/", "")) end

-- Template: "/*@ head @*/" then "/*@ kind NAME @*/" blocks, "/*@ end @*/".
local head, kinds = nil, {}
do
  local text = read(tmpl_path)
  local pos, cur_name, cur_start = 1, nil, nil
  for s, tag, e in text:gmatch("()/%*@ ([^@]-) @%*/\n?()") do
    if cur_name then
      local body = text:sub(cur_start, s - 1)
      if cur_name == "head" then head = body else kinds[cur_name] = body end
    end
    if tag == "end" then
      cur_name = nil
    elseif tag == "head" then
      cur_name = "head"
    else
      cur_name = tag:match("^kind (%w[%w_]*)$")
      if not cur_name then fail(tmpl_path, "bad marker /*@ " .. tag .. " @*/") end
    end
    cur_start, pos = e, e
  end
  if not head then fail(tmpl_path, "no /*@ head @*/ block") end
end

-- the template block of a kind: "dynamic" is "uncosted" with @DYNAMIC@,
-- "io_coll" is "io" with @COLL@ 1
local alias = { dynamic = "uncosted", io_coll = "io" }
local function block_of(kind) return alias[kind] or kind end

local roles_known = { buf = 1, count = 1, datatype = 1, peer = 1, tag = 1,
  comm = 1, request = 1, status = 1, newcomm = 1, root = 1,
  requests = 1, statuses = 1, index = 1, outcount = 1, indices = 1,
  win = 1, file = 1, flag = 1 }

-- Spec: KIND NAME MODEL [SIZE] | DECL : ROLE, ...
local funcs = {}
do
  local n = 0
  for line in (read(spec_path) .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local where = spec_path .. ":" .. n
    line = line:gsub("#.*", "")
    if line:match("%S") then
      local left, right = line:match("^([^|]*)|(.*)$")
      left = left or line
      local kind, name, rest = left:match("^%s*(%S+)%s+(%S+)%s*(.-)%s*$")
      if not kind then fail(where, "expected KIND NAME MODEL ...") end
      -- NAME@4: only where MPI_VERSION >= 4; NAME[_c]: and its large-count twin
      local since = name:match("@(%d+)$")
      name = name:gsub("@%d+$", "")
      local twin = name:match("%[_c%]$") ~= nil
      name = name:gsub("%[_c%]$", "")
      if not name:match("^MPI_[%w_]+$") then fail(where, "bad function name '" .. name .. "'") end
      local f = { kind = kind, name = name, where = where, params = {},
                  since = since and tonumber(since), twin = twin }
      if kind == "manual" and rest ~= "" then
        -- a manual wrapper may name the model row that costs it (I/O)
        f.model = "REVPROF_FN_" .. rest:match("^(%S+)")
      end
      if kind == "manual" and right then
        -- the C declaration only (for the Fortran bindings); "void": none
        f.declared = true
        if not right:match("^%s*void%s*$") then
          for item in right:gmatch("[^,]+") do
            local decl = item:match("^%s*(.-)%s*:%s*%-%s*$")
            if not decl then fail(where, "manual parameter '" .. item .. "' needs ': -'") end
            local pname = decl:match("([%a_][%w_]*)%s*%[%s*%]$") or decl:match("([%a_][%w_]*)$")
            if not pname then fail(where, "cannot find the name in '" .. decl .. "'") end
            f.params[#f.params + 1] = { decl = decl, name = pname }
          end
        end
      elseif kind ~= "manual" then
        f.declared = true
        if not kinds[block_of(kind)] then fail(where, "no template block for kind '" .. kind .. "'") end
        local model, size = rest:match("^(%S+)%s*(.-)$")
        if not model then fail(where, "missing MODEL") end
        f.model = model ~= "-" and ("REVPROF_FN_" .. model) or "REVPROF_FN_COUNT"
        f.size = size ~= "" and size or "0"
        if not right then fail(where, "missing '| parameters'") end
        f.roles = {}
        for item in right:gmatch("[^,]+") do
          local decl, role = item:match("^%s*(.-)%s*:%s*(%S+)%s*$")
          if not decl then fail(where, "parameter '" .. item .. "' needs ': ROLE'") end
          local pname = decl:match("([%a_][%w_]*)%s*%[%s*%]$") or decl:match("([%a_][%w_]*)$")
          if not pname then fail(where, "cannot find the name in '" .. decl .. "'") end
          if role ~= "-" then
            if not roles_known[role] then fail(where, "unknown role '" .. role .. "'") end
            f.roles[role] = pname
          end
          f.params[#f.params + 1] = { decl = decl, name = pname }
        end
      end
      funcs[#funcs + 1] = f
    end
  end
end

-- The large-count twin's declaration of a parameter: counts are MPI_Count,
-- displacement arrays MPI_Aint (the MPI-4 _c bindings; the compiler checks
-- the result against mpi.h). Returns the declaration and whether it is a
-- scalar count.
local function widen(p)
  local d, n = p.decl, p.name
  if d:match("^int [%w_]*count$") then return "MPI_Count " .. n, true end
  if d:match("^const int [%w_]*counts%[%]$") then return "const MPI_Count " .. n .. "[]" end
  if d:match("^const int [%w_]*displs%[%]$") then return "const MPI_Aint " .. n .. "[]" end
  return d
end

local p2p_kinds = { send = 1, isend = 1, send_init = 1, recv = 1, irecv = 1, recv_init = 1 }

-- One wrapper from its template block; twin: the NAME_c form.
local function expand(f, twin)
  local decls, names, fold_args, fits = {}, {}, {}, {}
  local name = twin and (f.name .. "_c") or f.name
  for _, p in ipairs(f.params) do
    local decl, scalar_count = p.decl, false
    if twin then decl, scalar_count = widen(p) end
    decls[#decls + 1] = decl
    names[#names + 1] = p.name
    fold_args[#fold_args + 1] = scalar_count and ("(int)" .. p.name) or p.name
    if scalar_count then fits[#fits + 1] = "rp_fits_int(" .. p.name .. ")" end
  end
  local roles = setmetatable({}, { __index = f.roles })
  local big_in, big_out = "", ""
  if twin and p2p_kinds[f.kind] then
    big_in = "rp_bigc rp_bc_;\n  rp_big_in(&rp_bc_, " .. f.roles.count .. ", " .. f.roles.datatype .. ");"
    big_out = "rp_big_out(&rp_bc_);"
    roles.count, roles.datatype = "rp_bc_.count", "rp_bc_.type"
  end
  fits[#fits + 1] = "rp_fold_" .. f.name .. "(&c, " .. f.model .. ", d, &rc, " .. table.concat(fold_args, ", ") .. ")"
  local subst = {
    NAME = name, PMPI = "P" .. name, WID = "RP_W_" .. name,
    FN = f.model, D = f.size,
    PARAMS = #decls > 0 and table.concat(decls, ", ") or "void",
    ARGS = table.concat(names, ", "),
    -- a call that may complete nothing (SIZE not "1") enters as a poll
    ENTER = f.size == "1" and "rp_enter" or "rp_enter_poll",
    LEAVE = "rp_leave",
    BIG_IN = big_in, BIG_OUT = big_out,
    DYNAMIC = "rp_g.dynamic = 1; /* another job is reachable from now on */",
    COLL = f.kind == "io_coll" and "1" or "0",
    ROOT = f.roles and f.roles.root or "-1",
    FLAG = f.roles and f.roles.flag or "NULL",
    FOLDCALL = table.concat(fits, " && "),
  }
  local body = kinds[block_of(f.kind)]
  -- the application's MPI_COMM_WORLD is rp_g.world (monitoring's tool
  -- ranks out of it): every communicator passed by value is mapped first
  local map = {}
  for _, p in ipairs(f.params) do
    local cname = p.decl:match("^MPI_Comm%s+([%w_]+)$")
    if cname then map[#map + 1] = "  " .. cname .. " = rp_world_map(" .. cname .. ");\n" end
  end
  if #map > 0 then
    local a, b = body:find(") {\n", 1, true)
    if not a then fail(f.where, "template kind '" .. f.kind .. "' has no function body") end
    body = body:sub(1, b) .. table.concat(map) .. body:sub(b + 1)
  end
  if big_in == "" then body = body:gsub("\n[ ]*@BIG_[IOUTN]+@[ ]*\n", "\n") end
  if f.kind ~= "dynamic" then body = body:gsub("\n[ ]*@DYNAMIC@[ ]*\n", "\n") end
  body = body:gsub("@([%w_]+)@", function(key)
    local v = subst[key] or roles[key]
    if not v then fail(f.where, "template kind '" .. f.kind .. "' uses @" .. key .. "@, which this function has no role for") end
    return v
  end)
  if twin or f.since then
    body = "#if MPI_VERSION >= " .. (twin and 4 or f.since) .. "\n" .. body .. "#endif\n"
  end
  return body
end

local banner = "/* generated from " .. basename(spec_path) .. " and " .. basename(tmpl_path) ..
  " by " .. basename(arg[0]) .. " — do not edit */\n"

local c = { banner, head }
for _, f in ipairs(funcs) do
  if f.kind ~= "manual" then
    c[#c + 1] = expand(f, false)
    if f.twin then c[#c + 1] = expand(f, true) end
  end
end
-- every name has an id, whether this MPI provides the function or not
local ids = {}
for _, f in ipairs(funcs) do
  ids[#ids + 1] = f.name
  if f.twin then ids[#ids + 1] = f.name .. "_c" end
end
-- the tables go to a file of their own (rp_wrap_ids.c, next to the
-- header): every layer of the library reads them, none calls the wrappers
local t = { banner, "#include \"rp_wrap_ids.h\"\n#include \"revprof_model.h\"\n" }
t[#t + 1] = "\nconst char *const rp_wrap_name[RP_W_COUNT] = {\n"
for _, n in ipairs(ids) do t[#t + 1] = "    \"" .. n .. "\",\n" end
t[#t + 1] = "};\n"
-- 1: no cost rule; 2: an I/O call, costed where the model has its row
t[#t + 1] = "\nconst unsigned char rp_wrap_uncosted[RP_W_COUNT] = {\n"
for _, f in ipairs(funcs) do
  local u = (f.kind == "uncosted" or f.kind == "dynamic") and "1" or
    f.kind == "world" and "0" or
    ((f.model or ""):match("^REVPROF_FN_FILE_") and "2" or "0")
  t[#t + 1] = "    " .. u .. ", /* " .. f.name .. " */\n"
  if f.twin then t[#t + 1] = "    " .. u .. ", /* " .. f.name .. "_c */\n" end
end
t[#t + 1] = "};\n"
t[#t + 1] = "\nconst int rp_wrap_fn[RP_W_COUNT] = {\n"
for _, f in ipairs(funcs) do
  local m = f.model or "REVPROF_FN_COUNT"
  t[#t + 1] = "    " .. m .. ", /* " .. f.name .. " */\n"
  if f.twin then t[#t + 1] = "    " .. m .. ", /* " .. f.name .. "_c */\n" end
end
t[#t + 1] = "};\n"

local h = { banner, "/* Ids of the MPI functions librevprof wraps (per-function statistics). */\n",
  "#ifndef RP_WRAP_IDS_H\n#define RP_WRAP_IDS_H\n\ntypedef enum rp_wid {\n" }
for _, n in ipairs(ids) do h[#h + 1] = "  RP_W_" .. n .. ",\n" end
h[#h + 1] = "  RP_W_COUNT\n} rp_wid;\n\n/* \"MPI_Send\", ... indexed by rp_wid. */\nextern const char *const rp_wrap_name[RP_W_COUNT];\n" ..
  "/* 1 for the functions of kind uncosted: run natively, no cost rule;\n" ..
  " * 2 for the I/O calls: costed only where the model has their row\n" ..
  " * (rp_wrap_fn); rp_uncosted() in rp_state.h decides. */\n" ..
  "extern const unsigned char rp_wrap_uncosted[RP_W_COUNT];\n" ..
  "/* The model row each wrapper is costed by (REVPROF_FN_COUNT: none). */\n" ..
  "extern const int rp_wrap_fn[RP_W_COUNT];\n\n#endif\n"

local function write(path, parts)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "w")
  if not f then fail(path, err) end
  f:write(table.concat(parts))
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then fail(path, rerr) end
end
write(out_c, c)
write(out_h, h)
write((out_h:gsub("%.h$", "")) .. ".c", t)
if out_f then
  local gen = dofile((arg[0]:gsub("[^/]*$", "")) .. "gen_fortran.lua")
  local fbanner = banner:gsub(" and " .. basename(tmpl_path), " and " .. basename(ftmpl_path))
  write(out_f, { gen(funcs, read(ftmpl_path), ftmpl_path, fail, fbanner) })
end
