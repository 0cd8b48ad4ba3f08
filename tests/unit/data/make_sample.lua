-- Writes the datasheet test data: sample_raw.csv (synthetic measurements with
-- noise, fixed seed) and sample_model.lua (a model close to the truth below).
-- Run from this directory: lua5.4 make_sample.lua
local seed = 12345
local function rnd() -- deterministic LCG, uniform in [0, 1)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function gauss() -- roughly N(0, 1)
  return (rnd() + rnd() + rnd() + rnd() - 2.0) * 1.7
end
local log2 = function(x) return math.log(x, 2) end

local sizes = { 0 }
for k = 0, 22 do sizes[#sizes + 1] = 2 ^ k end -- 1 B .. 4 MiB

-- True times in seconds, with message-size breakpoints.
local truth = {
  MPI_Send = function(p, d)
    if d <= 4096 then return 0.4e-6 + 0.2e-9 * d end
    if d <= 65536 then return 1.5e-6 + 0.12e-9 * d end
    return 6e-6 + 0.09e-9 * d -- rendezvous
  end,
  MPI_Barrier = function(p, d) return 1.0e-6 + 1.2e-6 * log2(p) end,
  MPI_Bcast = function(p, d)
    if d <= 8192 then return 0.8e-6 + 0.9e-6 * log2(p) + 0.3e-9 * log2(p) * d end
    return 4e-6 + 0.2e-6 * p + 0.12e-9 * log2(p) * d
  end,
  MPI_Allreduce = function(p, d)
    if d <= 32 then return 1.5e-6 + 2.0e-6 * log2(p) + 4e-9 * d end
    if d <= 65536 then return 3e-6 + 2.5e-6 * log2(p) + 0.6e-9 * log2(p) * d end
    return 20e-6 + 1.0e-6 * p + 0.8e-9 * (p - 1) / p * d
  end,
  MPI_Wtime = function(p, d) return 25e-9 end,
}

local out = assert(io.open("sample_raw.csv", "w"))
out:write("function,p,bytes,min,median,mean,max,reps,rse\n")
local function point(fn, p, d)
  local t = truth[fn](p, d)
  local med = t * (1 + 0.03 * gauss())
  local lo = med * (0.85 + 0.1 * rnd())
  local hi = med * (1.15 + 0.8 * rnd())
  local mean = med + (hi - med) * 0.2 * rnd()
  local reps = d > 65536 and 20 or 200
  out:write(string.format("%s,%d,%d,%.9g,%.9g,%.9g,%.9g,%d,%.4g\n", fn, p, d,
    lo, med, mean, hi, reps, 0.01 + 0.02 * rnd()))
end
for _, d in ipairs(sizes) do point("MPI_Send", 2, d) end
for p = 2, 8 do point("MPI_Barrier", p, 0) end
for p = 2, 32 do
  for i = 1, #sizes, 2 do point("MPI_Bcast", p, sizes[i]) end
end
for p = 2, 8 do
  for _, d in ipairs(sizes) do point("MPI_Allreduce", p, d) end
end
point("MPI_Wtime", 1, 0)
out:close()
