-- No file of librevprof includes a header of a layer above its own
-- (docs/design.md, "The picture").
--
--   lua includes_check.lua REVPROF_SOURCE_DIR
--
-- Every rp_*.c, rp_*.h and *.c.in file of the folder must be in the table
-- below (a new file: put it in its layer); each "rp_*.h" it includes must
-- be of its layer or one below. Headers from outside librevprof (the model
-- library, Lua, rp_util) are below every layer. Prints each violation and
-- exits 1; 2 on bad input.

local layer_of = {}
local layers = {
  -- 0: rules (pure, no MPI), names of code addresses and the trace writers
  { "rp_clock", "rp_comp", "rp_config", "rp_annotate", "rp_flags",
    "rp_noise", "rp_sample_rule", "rp_icost_rule", "rp_monitor_rule", "rp_monitor_cal", "rp_site",
    "rp_trace", "rp_trace_int",
    "rp_trace_stream",
    "rp_trace_chrome", "rp_trace_otf2", "rp_wrap_ids" },
  -- 1: core
  { "rp_state", "rp_mt", "rp_comm", "rp_match", "rp_icost", "rp_monitor" },
  -- 2: point-to-point, the modes and the report writer
  { "rp_p2p", "rp_mode", "rp_compensate", "rp_sample", "rp_report" },
  -- 3: collectives
  { "rp_coll", "rp_coll_fold", "rp_nbr", "rp_part" },
  -- 4: one-sided and MPI-IO
  { "rp_ops", "rp_rma", "rp_io" },
  -- 5: engine
  { "rp_engine" },
  -- 6: wrappers
  { "rp_wrap_manual", "rp_wrappers", "rp_fortran" },
}
local names = {}
for n, list in ipairs(layers) do
  names[n - 1] = table.concat(list, " ")
  for _, m in ipairs(list) do layer_of[m] = n - 1 end
end

local dir = arg[1]
if not dir then
  io.stderr:write("usage: lua includes_check.lua REVPROF_SOURCE_DIR\n")
  os.exit(2)
end
local ls = io.popen("ls '" .. dir:gsub("'", "'\\''") .. "'")
local files = {}
for f in ls:lines() do
  if f:match("^rp_.*%.[ch]$") or f:match("%.c%.in$") then files[#files + 1] = f end
end
ls:close()
if #files == 0 then
  io.stderr:write("includes_check: no source files in ", dir, "\n")
  os.exit(2)
end
table.sort(files)

local bad = 0
for _, f in ipairs(files) do
  local m = f:gsub("%.c%.in$", ""):gsub("%.[ch]$", "")
  local mine = layer_of[m]
  if mine == nil then
    print("includes_check: " .. f .. " is in no layer: add it to the table")
    bad = bad + 1
  else
    local h = io.open(dir .. "/" .. f)
    local line_no = 0
    for line in h:lines() do
      line_no = line_no + 1
      local inc = line:match('^%s*#%s*include%s+"(rp_[%w_]+)%.h"')
      local theirs = inc and layer_of[inc]
      if theirs and theirs > mine then
        print(string.format("includes_check: %s:%d includes %s.h (layer %d) "
          .. "from layer %d", f, line_no, inc, theirs, mine))
        bad = bad + 1
      end
    end
    h:close()
  end
end
if bad > 0 then os.exit(1) end
print(string.format("includes_check: ok, %d files, no include from a layer above", #files))
