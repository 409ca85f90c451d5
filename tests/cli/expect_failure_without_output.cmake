# As expect_failure.cmake, and the run must leave no file at EXPECT_ABSENT (removed before the run).
file(REMOVE ${EXPECT_ABSENT})
include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)
if(EXISTS ${EXPECT_ABSENT})
  message(FATAL_ERROR "the failed run left ${EXPECT_ABSENT} behind")
endif()
