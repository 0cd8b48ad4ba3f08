-- Cost functions for rp_exact.c's annotated region (revprof_region("work",
-- n)): n microseconds on the avg clock, half and double on min and max.
function work(n)
  return 0.5e-6 * n, 1e-6 * n, 2e-6 * n
end
