# Shared by the consumer tests' scripts (tests/consumer/run_consumer_test.cmake,
# tests/executorch_consumer/run_executorch_consumer_test.cmake), run with cmake -P.

# run_step(<name> <command...>): runs the command, prints its output, fails on a non-zero exit
# with a message naming the step (the calling script's `consumer_test_name` first).
function(run_step name)
  message(STATUS "${consumer_test_name}: ${name}: ${ARGN}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${consumer_test_name}: step '${name}' failed (exit ${rc})")
  endif()
endfunction()
