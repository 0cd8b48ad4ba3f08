/* span.c: the native reference of bench/proxy-apps.sh. A PMPI shim,
 * preloaded into an uninstrumented run, that measures what revprof's
 * report calls the elapsed time: per rank, from the end of MPI_Init to the
 * start of MPI_Finalize, the latest over the ranks, and the CPU time the
 * process used in that span (the most over the ranks: far below the
 * elapsed time when the machine is busy with others). Rank 0 prints
 *   proxy-span: <seconds> s cpu <seconds> s ranks <P>
 * on stderr. The Fortran entry points (mpi_init_, mpi_finalize_) are
 * wrapped too, because Fortran bindings may call PMPI_ directly. Nothing
 * else is changed. Built by the bench script, never part of revprof. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double t_init = -1.0, c_init;

static double cpu_now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void span_start(void)
{
  c_init = cpu_now();
  t_init = PMPI_Wtime();
}

static void span_stop(void)
{
  int rank = 0, size = 1, inited = 0, done = 0;
  double mine[2], worst[2] = {0.0, 0.0};
  PMPI_Initialized(&inited);
  PMPI_Finalized(&done);
  if (!inited || done || t_init < 0.0)
    return;
  mine[0] = PMPI_Wtime() - t_init;
  mine[1] = cpu_now() - c_init;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    fprintf(stderr, "proxy-span: %.6f s cpu %.6f s ranks %d\n", worst[0],
            worst[1], size);
  t_init = -1.0;
}

int MPI_Init(int *argc, char ***argv)
{
  int rc = PMPI_Init(argc, argv);
  span_start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  span_start();
  return rc;
}

int MPI_Finalize(void)
{
  span_stop();
  return PMPI_Finalize();
}

/* Fortran (gfortran name mangling; both MPIs export pmpi_*_) */
void pmpi_init_(MPI_Fint *ierr);
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void pmpi_finalize_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);

void mpi_init_(MPI_Fint *ierr)
{
  pmpi_init_(ierr);
  if (t_init < 0.0)
    span_start();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
  pmpi_init_thread_(required, provided, ierr);
  if (t_init < 0.0)
    span_start();
}

void mpi_finalize_(MPI_Fint *ierr)
{
  span_stop();
  pmpi_finalize_(ierr);
}
