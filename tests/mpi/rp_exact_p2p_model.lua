-- Hand-written machine model for librevprof's point-to-point exactness test
-- (rp_exact_p2p_model.h repeats these constants): not a measured machine. Seconds,
-- d in bytes. The gap has two regimes, so that the test crosses a switch.
local function lin(c, k, cmin, kmin, cmax, kmax)
  return { { dmin = 0, n = 0, form = { "1", "d" }, avg = { c, k },
             min = { cmin, kmin }, max = { cmax, kmax } } }
end
return {
  format = "revprof-model 3",
  machine = { name = "point-to-point exactness test machine", mpi = "none",
              date = "2026-11-25", ranks = 4, eager_limit = 524288,
              notes = "tests/mpi/rp_exact_p2p_model.lua" },
  method = "default",
  functions = {
    MPI_Send = lin(1e-6, 1e-9, 5e-7, 5e-10, 2e-6, 2e-9),
    MPI_Recv = lin(2e-6, 5e-10, 1e-6, 2.5e-10, 4e-6, 1e-9),
    latency = lin(5e-6, 2e-9, 3e-6, 1e-9, 8e-6, 4e-9),
    MPI_Isend = lin(5e-7, 1e-10, 2.5e-7, 5e-11, 1e-6, 2e-10),
    MPI_Irecv = lin(3e-6, 1e-9, 2e-6, 5e-10, 6e-6, 2e-9),
    MPI_Wait = lin(2e-7, 1e-11, 1e-7, 5e-12, 4e-7, 2e-11),
    gap = {
      { dmin = 0, dmax = 65535, n = 0, form = { "1", "d" }, avg = { 1e-6, 5e-10 },
        min = { 5e-7, 2.5e-10 }, max = { 2e-6, 1e-9 } },
      { dmin = 65536, n = 0, form = { "d" }, avg = { 1e-9 },
        min = { 5e-10 }, max = { 2e-9 } },
    },
    MPI_Barrier = { { dmin = 0, n = 0, form = { "1", "log2(p)" },
                      avg = { 1e-5, 5e-6 }, min = { 5e-6, 2.5e-6 }, max = { 2e-5, 1e-5 } } },
    MPI_Allreduce = { { dmin = 0, n = 0, form = { "1", "log2(p)", "d" },
                        avg = { 2e-5, 1e-5, 1e-9 }, min = { 1e-5, 5e-6, 5e-10 },
                        max = { 4e-5, 2e-5, 2e-9 } } },
    MPI_Wtime = lin(1e-8, 0, 1e-8, 0, 1e-8, 0),
  },
}
