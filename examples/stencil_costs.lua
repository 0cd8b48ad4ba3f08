-- Cost functions for examples/stencil.c run with --annotate lua
-- (REVPROF_COMPUTE=annotate REVPROF_LUA=stencil_costs.lua).
--
-- One "sweep" updates `cells` grid points: 4 loads, 3 adds, a multiply, an
-- abs, a compare and a store each -- memory bound on any recent CPU, about
-- 1 to 4 ns per point from cache to main memory.

function sweep(cells)
  return cells * 1.0e-9, cells * 2.0e-9, cells * 4.0e-9
end
