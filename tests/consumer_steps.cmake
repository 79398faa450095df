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

# append_build_settings(<list>): appends to the configure arguments in <list> the settings the
# calling script was given, each only when set: GENERATOR (-G), CXX_COMPILER, CONFIG (the build
# type), CXX_FLAGS, LINKER_FLAGS and LAUNCHER (the compiler launcher, ccache).
function(append_build_settings list)
  set(args ${${list}})
  if(DEFINED GENERATOR AND NOT GENERATOR STREQUAL "")
    list(APPEND args -G ${GENERATOR})
  endif()
  if(DEFINED CXX_COMPILER AND NOT CXX_COMPILER STREQUAL "")
    list(APPEND args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  endif()
  if(DEFINED CONFIG AND NOT CONFIG STREQUAL "")
    list(APPEND args -DCMAKE_BUILD_TYPE=${CONFIG})
  endif()
  if(DEFINED CXX_FLAGS AND NOT CXX_FLAGS STREQUAL "")
    list(APPEND args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
  endif()
  if(DEFINED LINKER_FLAGS AND NOT LINKER_FLAGS STREQUAL "")
    list(APPEND args "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
  endif()
  if(DEFINED LAUNCHER AND NOT LAUNCHER STREQUAL "" AND NOT LAUNCHER MATCHES "-NOTFOUND$")
    list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  set(${list} ${args} PARENT_SCOPE)
endfunction()

# start_consumer_test(<folder name>): sets `work` (BUILD/<folder name>, emptied), `prefix` and
# `consumer_build` below it, and `config_args` (--config CONFIG when CONFIG is set), then
# installs the devplan build BUILD into `prefix`.
macro(start_consumer_test folder)
  set(work ${BUILD}/${folder})
  set(prefix ${work}/prefix)
  set(consumer_build ${work}/build)
  file(REMOVE_RECURSE ${work})
  file(MAKE_DIRECTORY ${work})
  set(config_args)
  if(DEFINED CONFIG AND NOT CONFIG STREQUAL "")
    set(config_args --config ${CONFIG})
  endif()
  run_step("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix} ${config_args})
endmacro()
