# Finds revprof's dependencies (Debian 12 package names in README).
find_package(PkgConfig REQUIRED)
pkg_check_modules(GSL REQUIRED IMPORTED_TARGET gsl)
pkg_check_modules(LUA REQUIRED IMPORTED_TARGET lua5.4)
pkg_check_modules(PAPI IMPORTED_TARGET papi)
pkg_check_modules(OTF2 IMPORTED_TARGET otf2)
# elfutils' libdw: file:line of the report's call sites (dladdr without it)
pkg_check_modules(LIBDW IMPORTED_TARGET libdw)
find_library(MATH_LIBRARY m)

# MPI: Open MPI by default; -DREVPROF_MPI=mpich selects MPICH's compiler
# wrapper (Debian installs both side by side).
if(REVPROF_MPI STREQUAL "mpich")
  find_program(REVPROF_MPICC NAMES mpicc.mpich REQUIRED)
  find_program(REVPROF_MPIEXEC NAMES mpiexec.mpich mpiexec.hydra REQUIRED)
elseif(REVPROF_MPI STREQUAL "openmpi")
  find_program(REVPROF_MPICC NAMES mpicc.openmpi mpicc REQUIRED)
  find_program(REVPROF_MPIEXEC NAMES mpiexec.openmpi mpiexec REQUIRED)
else()
  message(FATAL_ERROR "REVPROF_MPI must be openmpi or mpich, not '${REVPROF_MPI}'")
endif()
set(MPI_C_COMPILER ${REVPROF_MPICC} CACHE FILEPATH "" FORCE)
set(MPIEXEC_EXECUTABLE ${REVPROF_MPIEXEC} CACHE FILEPATH "" FORCE)
find_package(MPI REQUIRED COMPONENTS C)

# Fortran (gfortran and the MPI's Fortran wrapper): the Fortran example and
# the tests of librevprof's Fortran bindings. The bindings themselves are C
# and are built without it.
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  if(REVPROF_MPI STREQUAL "mpich")
    find_program(REVPROF_MPIF90 NAMES mpif90.mpich mpifort.mpich)
  else()
    find_program(REVPROF_MPIF90 NAMES mpif90.openmpi mpifort.openmpi mpif90)
  endif()
endif()
if(CMAKE_Fortran_COMPILER AND REVPROF_MPIF90)
  enable_language(Fortran)
  set(MPI_Fortran_COMPILER ${REVPROF_MPIF90} CACHE FILEPATH "" FORCE)
  find_package(MPI COMPONENTS Fortran)
endif()
if(NOT TARGET MPI::MPI_Fortran)
  message(WARNING "no Fortran compiler or MPI Fortran wrapper (Debian: "
                  "gfortran): the Fortran example and tests are not built")
endif()

find_program(GNUPLOT_EXECUTABLE gnuplot)
find_program(PDFLATEX_EXECUTABLE pdflatex)
find_program(SMPICC_EXECUTABLE smpicc)
find_program(SMPIRUN_EXECUTABLE smpirun)
find_program(LUA_INTERPRETER NAMES lua5.4 lua REQUIRED)
