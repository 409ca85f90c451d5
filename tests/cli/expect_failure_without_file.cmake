# expect_failure.cmake's checks (EXPECT_CODE, one EXPECT_ERROR line) for a run that must also leave no
# NO_FILE behind: the file is removed first, and its presence afterwards fails the test.
file(REMOVE "${NO_FILE}")
include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)
if(EXISTS "${NO_FILE}")
  message(FATAL_ERROR "the failed run left ${NO_FILE} behind")
endif()
