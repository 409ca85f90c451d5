# Helpers that register psbench tests with ctest.
include(GoogleTest)
include(ProcessorCount)
ProcessorCount(PSBENCH_CORES)
if(PSBENCH_CORES EQUAL 0)
  set(PSBENCH_CORES 1)
endif()

# psbench_add_unit_test(NAME SOURCES src... [LIBS lib...] [ISA_VARIANTS] [OPTIMIZED]): a serial gtest binary, one
# ctest entry per test. Under the sanitizers its own code compiles at -O0 (psbench_light_under_sanitizers) unless
# OPTIMIZED says that it does heavy work itself (finite differences: 40 s at -O0 against 0.8 s at -O1).
# ISA_VARIANTS runs every test a second time as NAME.avx2.* with ONEDNN_MAX_CPU_ISA=AVX2, so
# oneDNN's AVX2 kernels (gemm:jit, jit:avx2) are tested on AVX-512 and AMX machines too. Their one label,
# unit-avx2, matches `-L unit` and `-LE avx2` (labels are regular expressions); a list of labels here would be
# split into separate PROPERTIES arguments and silently drop the ENVIRONMENT that follows it.
function(psbench_add_unit_test name)
  cmake_parse_arguments(ARG "ISA_VARIANTS;OPTIMIZED" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main psbench_options)
  if(NOT ARG_OPTIMIZED)
    psbench_light_under_sanitizers(${name})
  endif()
  set(unwind "")
  if(PSBENCH_SANITIZE)
    # The unit tests start no MPI, so LeakSanitizer needs no full stacks there: the fast unwinder (full stacks
    # on every allocation cost a SimGrid test 84 s of CPU against 4.3 s). Everything else keeps the asan
    # preset's fast_unwind_on_malloc=0, which Open MPI's leaks need to be named.
    set(unwind ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=set:detect_leaks=1")
  endif()
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 120 LABELS unit ${unwind})
  if(ARG_ISA_VARIANTS)
    gtest_discover_tests(${name} TEST_PREFIX "${name}.avx2." DISCOVERY_TIMEOUT 60
      PROPERTIES TIMEOUT 120 LABELS unit-avx2 ENVIRONMENT "ONEDNN_MAX_CPU_ISA=AVX2" ${unwind})
  endif()
endfunction()

# psbench_add_mpi_test(NAME SOURCES src... RANKS k... [LIBS lib...] [TIMEOUT s]): a gtest binary with the
# MPI-aware main, run once per rank count under mpiexec with PROCESSORS and TIMEOUT set.
function(psbench_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS;LIBS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} psbench_mpi_gtest_main)
  foreach(ranks IN LISTS ARG_RANKS)
    psbench_mpiexec_command(launcher ${ranks})
    add_test(NAME ${name}.np${ranks} COMMAND ${launcher} $<TARGET_FILE:${name}>)
    set(used ${ranks})
    if(used GREATER PSBENCH_CORES)
      set(used ${PSBENCH_CORES})
    endif()
    # The gtest main's watchdog names the stalled rank and test before ctest's timeout would kill it silently.
    math(EXPR deadline "${ARG_TIMEOUT} * 3 / 4")
    set_tests_properties(${name}.np${ranks} PROPERTIES PROCESSORS ${used} TIMEOUT ${ARG_TIMEOUT} LABELS mpi
      ENVIRONMENT "${PSBENCH_MPI_TEST_ENV};PSBENCH_TEST_DEADLINE_S=${deadline}")
  endforeach()
endfunction()

# Which MPI the tests launch, from mpiexec's --version: PSBENCH_MPIEXEC_FLAVOR is openmpi or mpich (MPICH's Hydra).
# Open MPI's mpiexec refuses more ranks than cores without --oversubscribe; Hydra takes no such flag and
# oversubscribes by itself.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE psbench_mpiexec_version ERROR_QUIET)
if(psbench_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(PSBENCH_MPIEXEC_FLAVOR openmpi)
  set(PSBENCH_OVERSUBSCRIBE_FLAG --oversubscribe)
elseif(psbench_mpiexec_version MATCHES "HYDRA")
  set(PSBENCH_MPIEXEC_FLAVOR mpich)
  set(PSBENCH_OVERSUBSCRIBE_FLAG "")
else()
  message(FATAL_ERROR "psbench's tests launch with Open MPI's or MPICH's mpiexec; '${MPIEXEC_EXECUTABLE} --version' "
                      "names neither. Set MPIEXEC_EXECUTABLE to one of them.")
endif()

# psbench_mpiexec_command(OUT ranks): the mpiexec prefix for a job of that many ranks on this machine.
function(psbench_mpiexec_command out ranks)
  set(command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks})
  if(ranks GREATER PSBENCH_CORES)
    list(APPEND command ${PSBENCH_OVERSUBSCRIBE_FLAG})
  endif()
  list(APPEND command ${MPIEXEC_PREFLAGS})
  set(${out} ${command} PARENT_SCOPE)
endfunction()

# Open MPI refuses to run as root without these; CI and fresh machines run the tests as root.
set(PSBENCH_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
if(PSBENCH_SANITIZE)
  # LeakSanitizer on: the MPI test binaries keep Open MPI's plugins mapped (tests/mpi/support/
  # keep_plugins_loaded.cpp), so cmake/sanitizers/lsan.supp can name their leaks (docs/reliability.md).
  list(APPEND PSBENCH_MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0")
endif()
