-- A made-up machine model for the examples: NOT a measured machine. The
-- collectives follow the equations seed 003 prints for the Cray T3D
-- (MPI_Allreduce, MPI_Allgather; log read as log2), the rest is invented in
-- the same spirit (tens of microseconds per call, ~30 MB/s). Use it to try
-- revprof without characterizing a machine first; for real predictions run
-- 'revprof characterize'. Times in seconds, d in bytes.
return {
  format = "revprof-model 2",
  machine = {
    name = "toy T3D-like machine (made up)",
    mpi = "none (hand-written)",
    date = "1996-01-01",
    ranks = 64,
    notes = "examples/toy_model.lua: illustrative numbers, not measurements",
  },
  method = "paper",
  functions = {
    MPI_Send = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 2e-05, 3e-08 }, err = { 4e-06, 5e-09 },
        min = { 1.6e-05, 2.5e-08 }, max = { 2.4e-05, 3.5e-08 } },
    },
    MPI_Recv = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 1.5e-05, 1e-08 }, err = { 3e-06, 2e-09 },
        min = { 1.2e-05, 8e-09 }, max = { 1.8e-05, 1.2e-08 } },
    },
    latency = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 3.5e-05, 3e-08 }, err = { 5e-06, 4e-09 },
        min = { 3e-05, 2.6e-08 }, max = { 4e-05, 3.4e-08 } },
    },
    MPI_Isend = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 1e-05, 1e-09 }, err = { 2e-06, 5e-10 },
        min = { 8e-06, 5e-10 }, max = { 1.2e-05, 1.5e-09 } },
    },
    MPI_Irecv = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 1.5e-05, 1e-08 }, err = { 3e-06, 2e-09 },
        min = { 1.2e-05, 8e-09 }, max = { 1.8e-05, 1.2e-08 } },
    },
    MPI_Sendrecv = {
      { dmin = 0, n = 0,
        form = { "1", "d" },
        avg = { 4e-05, 4e-08 }, err = { 6e-06, 6e-09 },
        min = { 3.4e-05, 3.4e-08 }, max = { 4.6e-05, 4.6e-08 } },
    },
    MPI_Barrier = {
      { dmin = 0, n = 0,
        form = { "1", "log2(p)" },
        avg = { 5e-06, 1e-05 }, err = { 2e-06, 2e-06 },
        min = { 3e-06, 8e-06 }, max = { 7e-06, 1.2e-05 } },
    },
    MPI_Bcast = {
      { dmin = 0, n = 0,
        form = { "1", "log2(p)", "log2(p)*d" },
        avg = { 3e-05, 4e-05, 3e-08 }, err = { 1e-05, 5e-06, 5e-09 },
        min = { 2e-05, 3.5e-05, 2.5e-08 }, max = { 4e-05, 4.5e-05, 3.5e-08 } },
    },
    MPI_Reduce = {
      { dmin = 0, n = 0,
        form = { "1", "log2(p)", "log2(p)*d" },
        avg = { 4e-05, 6e-05, 5e-08 }, err = { 1e-05, 8e-06, 1e-08 },
        min = { 3e-05, 5.2e-05, 4e-08 }, max = { 5e-05, 6.8e-05, 6e-08 } },
    },
    MPI_Allreduce = {
      { dmin = 0, dmax = 32, n = 0,
        form = { "1", "log2(p)", "d" },
        avg = { 5e-05, 0.0002, 4e-06 }, err = { 3e-05, 1e-05, 1e-06 },
        min = { 2e-05, 0.00019, 3e-06 }, max = { 8e-05, 0.00021, 5e-06 } },
      { dmin = 33, n = 0,
        form = { "1", "p", "log2(p)*d" },
        avg = { 0.0003, 2e-05, 9e-07 }, err = { 3e-05, 2e-06, 3e-08 },
        min = { 0.00027, 1.8e-05, 8.7e-07 }, max = { 0.00033, 2.2e-05, 9.3e-07 } },
    },
    MPI_Gather = {
      { dmin = 0, n = 0,
        form = { "1", "p", "p*d" },
        avg = { 3e-05, 4e-05, 3e-08 }, err = { 1e-05, 3e-06, 5e-09 },
        min = { 2e-05, 3.7e-05, 2.5e-08 }, max = { 4e-05, 4.3e-05, 3.5e-08 } },
    },
    MPI_Allgather = {
      { dmin = 0, dmax = 32, n = 0,
        form = { "1", "p", "d" },
        avg = { 5e-05, 4e-05, 1e-06 }, err = { 2e-05, 1e-06, 9e-07 },
        min = { 3e-05, 3.9e-05, 1e-07 }, max = { 7e-05, 4.1e-05, 1.9e-06 } },
      { dmin = 33, n = 0,
        form = { "1", "p", "p*d" },
        avg = { 4e-06, 4e-05, 3e-07 }, err = { 2e-05, 3e-06, 9e-09 },
        min = { 0, 3.7e-05, 2.91e-07 }, max = { 2.4e-05, 4.3e-05, 3.09e-07 } },
    },
    MPI_Alltoall = {
      { dmin = 0, n = 0,
        form = { "1", "p", "p*d" },
        avg = { 5e-05, 6e-05, 5e-08 }, err = { 2e-05, 5e-06, 1e-08 },
        min = { 3e-05, 5.5e-05, 4e-08 }, max = { 7e-05, 6.5e-05, 6e-08 } },
    },
    MPI_Wtime = {
      { dmin = 0, n = 0,
        form = { "1" },
        avg = { 1e-06 }, err = { 2e-07 },
        min = { 8e-07 }, max = { 1.2e-06 } },
    },
  },
}
