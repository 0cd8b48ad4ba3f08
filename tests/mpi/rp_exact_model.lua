-- Hand-written machine model for librevprof's exactness test (rp_exact.c
-- repeats these constants): not a measured machine. Seconds, d in bytes.
local function lin(c, k, cmin, kmin, cmax, kmax)
  return { { dmin = 0, n = 0, form = { "1", "d" }, avg = { c, k },
             min = { cmin, kmin }, max = { cmax, kmax } } }
end
return {
  format = "revprof-model 1",
  machine = { name = "exactness test machine", mpi = "none", date = "2026-01-01",
              ranks = 4, notes = "tests/mpi/rp_exact_model.lua" },
  method = "default",
  functions = {
    MPI_Send = lin(1e-6, 1e-9, 5e-7, 5e-10, 2e-6, 2e-9),
    MPI_Recv = lin(2e-6, 5e-10, 1e-6, 2.5e-10, 4e-6, 1e-9),
    latency = lin(5e-6, 2e-9, 3e-6, 1e-9, 8e-6, 4e-9),
    MPI_Isend = lin(5e-7, 1e-10, 2.5e-7, 5e-11, 1e-6, 2e-10),
    MPI_Irecv = lin(3e-6, 1e-9, 2e-6, 5e-10, 6e-6, 2e-9),
    MPI_Sendrecv = lin(4e-6, 3e-9, 2e-6, 1.5e-9, 8e-6, 6e-9),
    MPI_Barrier = { { dmin = 0, n = 0, form = { "1", "log2(p)" },
                      avg = { 1e-5, 5e-6 }, min = { 5e-6, 2.5e-6 }, max = { 2e-5, 1e-5 } } },
    MPI_Allreduce = { { dmin = 0, n = 0, form = { "1", "log2(p)", "d" },
                        avg = { 2e-5, 1e-5, 1e-9 }, min = { 1e-5, 5e-6, 5e-10 },
                        max = { 4e-5, 2e-5, 2e-9 } } },
    MPI_Bcast = { { dmin = 0, n = 0, form = { "1", "log2(p)*d" },
                    avg = { 1.5e-5, 2e-9 }, min = { 1e-5, 1e-9 }, max = { 3e-5, 4e-9 } } },
    MPI_Iallreduce = { { dmin = 0, n = 0, form = { "1", "p", "d" },
                         avg = { 3e-5, 1e-6, 1e-9 }, min = { 2e-5, 5e-7, 5e-10 },
                         max = { 6e-5, 2e-6, 2e-9 } } },
    MPI_Allgather = lin(3e-6, 2e-9, 2e-6, 1e-9, 6e-6, 4e-9),
    MPI_Alltoall = lin(4e-6, 3e-9, 3e-6, 2e-9, 8e-6, 6e-9),
    MPI_Gather = lin(6e-6, 1e-9, 3e-6, 5e-10, 1.2e-5, 2e-9),
    MPI_Scatter = lin(7e-6, 2e-9, 4e-6, 1e-9, 1.4e-5, 4e-9),
    MPI_Reduce = lin(8e-6, 1e-9, 5e-6, 5e-10, 1.6e-5, 2e-9),
    MPI_Wtime = lin(1e-8, 0, 1e-8, 0, 1e-8, 0),
    -- one-sided (rp_exact_rma.c repeats these)
    MPI_Put = lin(2e-6, 1e-9, 1e-6, 5e-10, 4e-6, 2e-9),
    MPI_Get = lin(3e-6, 2e-9, 1.5e-6, 1e-9, 6e-6, 4e-9),
    MPI_Accumulate = lin(4e-6, 3e-9, 2e-6, 1.5e-9, 8e-6, 6e-9),
    MPI_Win_lock = lin(6e-6, 0, 3e-6, 0, 1.2e-5, 0),
    MPI_Neighbor_allgather = { { dmin = 0, n = 0, form = { "1", "p", "d" },
                                 avg = { 2e-6, 1e-6, 1e-9 }, min = { 1e-6, 5e-7, 5e-10 },
                                 max = { 4e-6, 2e-6, 2e-9 } } },
    MPI_Win_fence = { { dmin = 0, n = 0, form = { "1", "log2(p)" },
                        avg = { 7e-6, 3e-6 }, min = { 3.5e-6, 1.5e-6 }, max = { 1.4e-5, 6e-6 } } },
  },
}
