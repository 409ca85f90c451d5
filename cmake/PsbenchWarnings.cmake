# Compile options shared by every psbench target.
add_library(psbench_options INTERFACE)
target_compile_options(psbench_options INTERFACE -Wall -Wextra -Wpedantic)
if(PSBENCH_NATIVE)
  target_compile_options(psbench_options INTERFACE -march=native)
endif()
if(PSBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PSBENCH_FUZZ needs clang (libFuzzer): use 'cmake --preset fuzz'.")
  endif()
  target_compile_options(psbench_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  target_link_options(psbench_options INTERFACE -fsanitize=address,undefined)
elseif(PSBENCH_SANITIZE)
  target_compile_options(psbench_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(psbench_options INTERFACE -fsanitize=address,undefined)
endif()

# psbench_light_under_sanitizers(TARGET): under PSBENCH_SANITIZE, TARGET compiles at -O0 (after the preset's
# -O1, so it wins). For code whose own run time is negligible: the unit tests' code, the CLI, the results schema
# (the MPI tests check millions of values in their own loops: at -O0 under ASan they outlast their deadline).
# With UBSan, -O1 doubles a compile (the results schema: 43 s against 18 s) and the asan build is CI's longest
# step; the libraries that do the work (ps, nn, data, perf) stay at -O1, as ASan recommends.
function(psbench_light_under_sanitizers target)
  if(PSBENCH_SANITIZE AND NOT PSBENCH_FUZZ)
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()
