# Runs PSBENCH with ARGS (a ;-list) and checks it exits with EXPECT_CODE and prints exactly one stderr line
# matching EXPECT_ERROR (the psbench error convention). Optional ENV_PREFIX (a ;-list) runs it under a
# launcher such as mpiexec.
execute_process(COMMAND ${ENV_PREFIX} ${PSBENCH} ${ARGS}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT code EQUAL EXPECT_CODE)
  message(FATAL_ERROR "expected exit code ${EXPECT_CODE}, got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
# Semicolons would split CMake list items: count error lines on a copy without them.
string(REPLACE ";" "," err_without_semicolons "${err}")
string(REGEX MATCHALL "psbench: error:[^\n]*" lines "${err_without_semicolons}")
list(LENGTH lines count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one 'psbench: error:' line, got ${count}:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT_ERROR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_ERROR}':\n${err}")
endif()
