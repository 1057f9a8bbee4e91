# Runs RUN (a command list joined with "|") and requires what bad input must give: exit status 2
# (not 1, a failure while running, nor a crash) and exactly one message on stderr, from rank 0,
# that matches EXPECT (a regular expression naming the file and where it is wrong).
string(REPLACE "|" ";" RUN "${RUN}")
execute_process(COMMAND ${RUN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "run: status ${status}\n${out}${err}")
if(NOT status EQUAL 2)
  message(FATAL_ERROR "bad input must end the run with status 2, not ${status}")
endif()
string(REGEX MATCHALL "stagecraft-run: [^\n]*" messages "${out}${err}")
list(LENGTH messages count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one message from stagecraft-run, got ${count}: ${messages}")
endif()
if(NOT messages MATCHES "${EXPECT}")
  message(FATAL_ERROR "the message does not match '${EXPECT}': ${messages}")
endif()
