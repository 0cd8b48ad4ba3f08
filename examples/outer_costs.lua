-- Cost functions for examples/outer.c run with --annotate lua
-- (REVPROF_COMPUTE=annotate REVPROF_LUA=outer_costs.lua): each returns the
-- seconds one call of revprof_region("name", ...) costs, as min, avg, max.
--
-- One "row" computes n distances. Seed 003 (section 5) counts one compute
-- step per distance -- a function call, a subtraction, two array indexings
-- and a store -- and brackets it between 15 and 150 cycles of a 6.6 ns
-- clock: about 0.1 us to 1 us on the Cray T3D's Alpha.

local step_min = 1.0e-7 -- seconds per distance, best case
local step_avg = 3.0e-7
local step_max = 1.0e-6 -- worst case

function row(n)
  return n * step_min, n * step_avg, n * step_max
end
