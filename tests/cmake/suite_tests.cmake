# Run after ctwin_unit_tests links (CTWIN_TESTS_BY_SUITE): writes CTEST_FILE with one CTest test
# per GoogleTest suite, labelled unit, that runs the suite's tests in one process, and one test
# per oracle-slow test, labelled oracle-slow, as gtest_discover_tests would.
#   -D TEST_EXECUTABLE=... -D CTEST_FILE=... -D WORKING_DIRECTORY=... -D ORACLE_SLOW=a.b:c.d
# Why: every sanitized process pays ASan's start-up and LeakSanitizer's exit scan (0.1 s for
# the shortest tests against 0.03 s in Release), ~880 times a run; a suite pays it once.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests exited with ${status}")
endif()
string(REPLACE ":" ";" ORACLE_SLOW "${ORACLE_SLOW}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(oracles "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE " *#.*" "" line "${line}")
  if(line MATCHES "^([^ ].*)\\.$")
    set(suite "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^  ([^ ]+)$")
    set(test "${suite}.${CMAKE_MATCH_1}")
    if(test MATCHES "\\.DISABLED_")
      continue()
    elseif(test IN_LIST ORACLE_SLOW)
      list(APPEND oracles "${test}")
      continue()
    endif()
    if(NOT suite IN_LIST suites)
      list(APPEND suites "${suite}")
    endif()
  endif()
endforeach()
list(JOIN ORACLE_SLOW ":" excluded)
set(script "")
foreach(suite IN LISTS suites)
  string(APPEND script "add_test([=[${suite}.*]=] [==[${TEST_EXECUTABLE}]==] [=[--gtest_filter=${suite}.*-${excluded}]=])\n"
         "set_tests_properties([=[${suite}.*]=] PROPERTIES LABELS unit WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==])\n")
endforeach()
foreach(test IN LISTS oracles)
  string(APPEND script "add_test([=[${test}]=] [==[${TEST_EXECUTABLE}]==] [=[--gtest_filter=${test}]=])\n"
         "set_tests_properties([=[${test}]=] PROPERTIES LABELS oracle-slow WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==])\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
