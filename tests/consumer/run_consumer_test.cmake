# The ctest `install_consumer`: proves that an installed devplan can be used from another CMake
# project. Run as
#
#   cmake -DSOURCE=<repo>/tests/consumer -DBUILD=<devplan build dir> [-DCONFIG=<config>]
#         [-DCXX_COMPILER=<c++>] [-DGENERATOR=<generator>] [-DCXX_FLAGS=<flags>]
#         [-DLINKER_FLAGS=<flags>] -P run_consumer_test.cmake
#
# It installs BUILD into a fresh prefix (BUILD/install_consumer/prefix), checks the layout (every
# header under include/devplan/, nothing else in include/), configures SOURCE against it with
# CMAKE_PREFIX_PATH (tests/consumer/CMakeLists.txt checks that the targets' include directory is
# include/devplan), checks that find_package(devplan) found that prefix, builds
# the consumer and runs its test. Every step's output is printed; any failure fails the test
# with a message naming the step. CXX_FLAGS/LINKER_FLAGS carry the devplan build's flags (a
# sanitizer build's static libraries need the same runtime in the consumer).

foreach(var SOURCE BUILD)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(consumer_test_name install_consumer)
include(${CMAKE_CURRENT_LIST_DIR}/../consumer_steps.cmake)
start_consumer_test(install_consumer)

# Every header under the one folder include/devplan/, at the path it is included by.
foreach(expected
    lib/cmake/devplan/devplanConfig.cmake
    lib/cmake/devplan/devplanConfigVersion.cmake
    lib/cmake/devplan/devplanTargets.cmake
    include/devplan/runtime_ext/core/device.h
    include/devplan/runtime_ext/core/device_memory_buffer.h
    include/devplan/runtime_ext/schema/program_generated.h
    include/devplan/runtime_ext/writer/program_builder.h
    include/devplan/runtime_ext/analysis/plan_check.h
    include/devplan/mocks/tracking_device_allocator.h
    include/devplan/fixtures/leak_checked_test.h
    include/devplan/fixtures/generator/fixture_programs.h)
  if(NOT EXISTS ${prefix}/${expected})
    message(FATAL_ERROR "install_consumer: the install has no ${expected}")
  endif()
endforeach()
# Nothing of devplan's directly in <prefix>/include: only the folder devplan/.
file(GLOB include_entries RELATIVE ${prefix}/include ${prefix}/include/*)
if(NOT include_entries STREQUAL "devplan")
  message(FATAL_ERROR
    "install_consumer: <prefix>/include should hold only devplan/, not: ${include_entries}")
endif()
foreach(unexpected include/runtime_ext include/mocks include/fixtures)
  if(EXISTS ${prefix}/${unexpected})
    message(FATAL_ERROR "install_consumer: the install has ${unexpected} (headers belong under include/devplan/)")
  endif()
endforeach()

set(configure_args
  -S ${SOURCE} -B ${consumer_build}
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
append_build_settings(configure_args)
run_step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})

# find_package must have used the fresh install, not some other devplan on the machine.
file(STRINGS ${consumer_build}/CMakeCache.txt devplan_dir_line REGEX "^devplan_DIR:")
string(REGEX REPLACE "^devplan_DIR:[A-Z]+=" "" devplan_dir "${devplan_dir_line}")
file(REAL_PATH "${prefix}/lib/cmake/devplan" expected_dir)
if(NOT devplan_dir STREQUAL "")
  file(REAL_PATH "${devplan_dir}" devplan_dir)
endif()
if(NOT devplan_dir STREQUAL expected_dir)
  message(FATAL_ERROR
    "install_consumer: find_package(devplan) used '${devplan_dir}', not '${expected_dir}'")
endif()

run_step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build} ${config_args})

set(consumer_exe ${consumer_build}/consumer_test)
if(DEFINED CONFIG AND NOT CONFIG STREQUAL "" AND EXISTS ${consumer_build}/${CONFIG}/consumer_test)
  set(consumer_exe ${consumer_build}/${CONFIG}/consumer_test)
endif()
run_step("run the consumer's test" ${consumer_exe})

# The budget gate: the recorded program passes, the grown one fails naming the buffer and growth.
run_step("the consumer's budget gate passes"
  ${CMAKE_CTEST_COMMAND} --test-dir ${consumer_build} -R "^consumer_budget$" --output-on-failure)
message(STATUS "install_consumer: the grown program must fail its budget gate")
execute_process(
  COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${consumer_build} -R "^consumer_budget_grown$"
          --output-on-failure
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
message("${out}")
set(expected "FAIL model.pte forward: buffer 1 (cuda:0) grew 48 B -> 64 B (+16 B, +33.33%; tolerance 0%)")
string(FIND "${out}" "${expected}" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR
    "install_consumer: ctest on the grown program exited ${rc}; expected a failure naming "
    "'${expected}'")
endif()
message(STATUS "install_consumer: passed")
