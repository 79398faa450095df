# The ctest `executorch_consumer`: an ExecuTorch developer's project (this folder) uses the
# installed devplan's `executorch` component and the executorch wheel, nothing else of devplan's
# tree. Run as
#
#   cmake -DSOURCE=<repo>/tests/executorch_consumer -DBUILD=<devplan build dir>
#         -DEXECUTORCH_ROOT=<the wheel> -DPROGRAMS_DIR=<repo>/fixtures/executorch/exporter
#         [-DCONFIG=<config>] [-DCXX_COMPILER=<c++>] [-DGENERATOR=<generator>]
#         -P run_executorch_consumer_test.cmake
#
# It installs BUILD into a fresh prefix (BUILD/executorch_consumer/prefix), configures SOURCE
# against it, builds it and runs the project's own ctest (its GoogleTest suite, its property and
# the planted-leak check). Every step's output is printed; a failure names the step.
foreach(var SOURCE BUILD EXECUTORCH_ROOT PROGRAMS_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_executorch_consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()
set(consumer_test_name executorch_consumer)
include(${CMAKE_CURRENT_LIST_DIR}/../consumer_steps.cmake)

start_consumer_test(executorch_consumer)
foreach(expected
    lib/cmake/devplan/devplanExecutorchTargets.cmake
    lib/cmake/devplan/DevplanExecutorchRuntime.cmake
    include/devplan/executorch_testing/leak_checked_test.h
    include/devplan/executorch_testing/tracking_executorch_allocator.h
    include/devplan/executorch_testing/executorch_allocator_registration.h
    include/devplan/executorch_testing/executorch_program_gen.h
    include/devplan/harness/scenario/rapidcheck_generators.h
    include/devplan/harness/scenario/scenario_gen.h)
  if(NOT EXISTS ${prefix}/${expected})
    message(FATAL_ERROR "executorch_consumer: the install has no ${expected}")
  endif()
endforeach()

set(configure_args
  -S ${SOURCE} -B ${consumer_build}
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DDEVPLAN_EXECUTORCH_ROOT=${EXECUTORCH_ROOT}
  -DPROGRAMS_DIR=${PROGRAMS_DIR})
append_build_settings(configure_args)
run_step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
run_step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build} ${config_args})
run_step("run the consumer's ctest" ${CMAKE_CTEST_COMMAND} --test-dir ${consumer_build}
         --output-on-failure ${config_args})
message(STATUS "executorch_consumer: passed")
