# The ctest `subproject`: proves that devplan can be built as part of another project
# (add_subdirectory) without its tests and without imposing its global settings. Run as
#
#   cmake -DDEVPLAN_SOURCE=<repo> -DSOURCE=<repo>/tests/subproject -DBUILD=<devplan build dir>
#         [-DCXX_COMPILER=<c++>] [-DGENERATOR=<generator>] [-DLAUNCHER=<ccache>]
#         -P run_subproject_test.cmake
#
# It configures SOURCE in BUILD/subproject_test (the checks run while configuring: see
# tests/subproject/CMakeLists.txt), builds subproject_main, which builds devplan_core, and runs
# it. The CUDA and ExecuTorch parts are off, to keep the run short (about half a minute; ccache,
# passed as the parent's launcher, makes later runs faster). Every step's output is printed;
# any failure fails the test with a message naming the step.

foreach(var DEVPLAN_SOURCE SOURCE BUILD)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_subproject_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(work ${BUILD}/subproject_test)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

set(consumer_test_name subproject)
include(${CMAKE_CURRENT_LIST_DIR}/../consumer_steps.cmake)

set(configure_args
  -S ${SOURCE} -B ${work}
  -DDEVPLAN_SOURCE_DIR=${DEVPLAN_SOURCE}
  -DDEVPLAN_WITH_CUDA=OFF
  -DDEVPLAN_WITH_EXECUTORCH=OFF
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
append_build_settings(configure_args)
run_step("configure" ${CMAKE_COMMAND} ${configure_args})
run_step("build subproject_main" ${CMAKE_COMMAND} --build ${work} --target subproject_main --parallel 2)
run_step("run subproject_main" ${work}/subproject_main)
message(STATUS "subproject: passed")
