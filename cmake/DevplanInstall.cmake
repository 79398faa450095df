# Install rules and the CMake package `devplan`.
#
#   cmake --install build --prefix /opt/devplan
#
# installs
#   lib/libdevplan_*.a                          every library target that this build defines
#   include/devplan/<repository layout>/*.h     e.g. include/devplan/runtime_ext/core/device.h,
#                                               include/devplan/mocks/tracking_device_allocator.h,
#                                               include/devplan/runtime_ext/schema/program_generated.h
#   bin/devplan                                 the command-line tool (when it is built)
#   lib/cmake/devplan/devplanConfig.cmake, devplanConfigVersion.cmake, devplanTargets*.cmake,
#   DevplanBudget.cmake                          devplan_add_budget_test() (imported devplan::devplan)
#
# and another CMake project uses it with
#
#   find_package(devplan REQUIRED)      # -DCMAKE_PREFIX_PATH=/opt/devplan
#   target_link_libraries(my_tests PRIVATE devplan::mocks devplan::fixtures)
#
# Every header sits under the one folder include/devplan/ (nothing of devplan's lands directly
# in the prefix's include/, where runtime_ext/, mocks/ or fixtures/ could clash with another
# package). That folder is the include directory of the exported targets
# ($<INSTALL_INTERFACE:${DEVPLAN_INSTALL_INCLUDEDIR}> on devplan_core and devplan_schema), so
# consumers write #include <runtime_ext/core/device.h> as this repository does. The targets
# also carry cxx_std_17 as a compile feature.
#
# Every library is in the one export set devplanTargets (namespace devplan::, target names from
# the EXPORT_NAME properties: devplan_core -> devplan::core). Libraries that a configuration does
# not build (devplan_cuda without CUDA, the GoogleTest ones without GoogleTest) are skipped.
# tests/consumer/ holds the ctest `install_consumer`, which installs this build into a temporary
# prefix and builds a small project against it.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DEVPLAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/devplan
    CACHE STRING "Where the devplan CMake package files are installed (relative to the prefix)")

# --- Libraries ------------------------------------------------------------------------------------
# Dependency order, in the groups of the README's layout: the runtime, the ahead-of-time tools,
# the mocks and test fixtures. A name without a target in this configuration is skipped.
set(devplan_install_candidates
  # The runtime
  devplan_core
  devplan_schema
  devplan_program
  devplan_executor
  devplan_module
  devplan_cuda_allocator
  devplan_cuda
  # Ahead of time
  devplan_writer
  devplan_planning
  devplan_graph_gen
  devplan_analysis
  devplan_scenario
  devplan_scenario_gen
  # Mocks and test fixtures
  devplan_mocks
  devplan_mocks_gmock
  devplan_fixtures
  devplan_fixture_programs_lib
)
set(devplan_install_targets)
foreach(target IN LISTS devplan_install_candidates)
  if(TARGET ${target})
    list(APPEND devplan_install_targets ${target})
  endif()
endforeach()

install(TARGETS ${devplan_install_targets}
  EXPORT devplanTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Include directories travel with the link interfaces: devplan_core and devplan_schema carry
# $<INSTALL_INTERFACE:${DEVPLAN_INSTALL_INCLUDEDIR}> (include/devplan, set in the top-level
# CMakeLists.txt), and every other library links devplan::core PUBLIC.

install(EXPORT devplanTargets
  NAMESPACE devplan::
  FILE devplanTargets.cmake
  DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR})

# The `executorch` component (executorch_testing/): its own export set, loaded only when a
# consumer asks for the component, since its targets link ExecuTorch (devplan::executorch_runtime,
# which devplanConfig.cmake defines from the consumer's ExecuTorch through the installed
# DevplanExecutorchRuntime.cmake).
set(devplan_executorch_install_targets)
foreach(target devplan_executorch_allocators devplan_executorch_testing)
  if(TARGET ${target})
    list(APPEND devplan_executorch_install_targets ${target})
  endif()
endforeach()
set(DEVPLAN_CONFIG_HAS_EXECUTORCH OFF)
if(TARGET devplan_executorch_testing)
  set(DEVPLAN_CONFIG_HAS_EXECUTORCH ON)
  install(TARGETS ${devplan_executorch_install_targets}
    EXPORT devplanExecutorchTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT devplanExecutorchTargets
    NAMESPACE devplan::
    FILE devplanExecutorchTargets.cmake
    DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/DevplanExecutorchRuntime.cmake
    DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR})
endif()

# --- Headers --------------------------------------------------------------------------------------
# The .h files of each library's folder, under include/devplan/ at the path they are included by
# (#include <runtime_ext/core/device.h> -> include/devplan/runtime_ext/core/device.h). Test folders and
# folders of data (committed programs, corpora) are left out.
function(devplan_install_headers target dir)
  if(NOT TARGET ${target})
    return()
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/
    DESTINATION ${DEVPLAN_INSTALL_INCLUDEDIR}/${dir}
    FILES_MATCHING PATTERN "*.h"
    PATTERN test EXCLUDE
    PATTERN executorch EXCLUDE
    PATTERN corpus EXCLUDE)
endfunction()

devplan_install_headers(devplan_core runtime_ext/core)
devplan_install_headers(devplan_program runtime_ext/program)
devplan_install_headers(devplan_executor runtime_ext/executor)
devplan_install_headers(devplan_module runtime_ext/module)
devplan_install_headers(devplan_cuda_allocator runtime_ext/cuda)
devplan_install_headers(devplan_writer runtime_ext/writer)
devplan_install_headers(devplan_planning runtime_ext/planning)
devplan_install_headers(devplan_analysis runtime_ext/analysis)
devplan_install_headers(devplan_scenario harness/scenario)
devplan_install_headers(devplan_executorch_allocators executorch_testing)
devplan_install_headers(devplan_mocks mocks)
# fixtures/ holds devplan_fixtures' headers and, in generator/, devplan_fixture_programs_lib's.
devplan_install_headers(devplan_fixture_programs_lib fixtures)

# The schema header is generated by flatc into the build tree (runtime_ext/schema/CMakeLists.txt).
if(TARGET devplan_schema)
  install(FILES
    ${PROJECT_BINARY_DIR}/runtime_ext/schema/generated/runtime_ext/schema/program_generated.h
    ${PROJECT_BINARY_DIR}/runtime_ext/schema/generated/runtime_ext/schema/bundled_program_generated.h
    ${PROJECT_BINARY_DIR}/runtime_ext/schema/generated/runtime_ext/schema/flat_tensor_generated.h
    ${PROJECT_SOURCE_DIR}/runtime_ext/schema/program.fbs
    ${PROJECT_SOURCE_DIR}/runtime_ext/schema/bundled_program.fbs
    ${PROJECT_SOURCE_DIR}/runtime_ext/schema/flat_tensor.fbs
    DESTINATION ${DEVPLAN_INSTALL_INCLUDEDIR}/runtime_ext/schema)
endif()

# --- The command-line tool ------------------------------------------------------------------------
if(TARGET devplan)
  # The installed tool finds the shared libraries it was linked with (ExecuTorch's from the
  # wheel, the CUDA runtime) where they were at build time: their folders become its RUNPATH.
  # ExecuTorch's libraries come through devplan::executorch_runtime, as an -rpath flag (the
  # wheel) or as full paths to shared libraries (a source build's install tree).
  set_target_properties(devplan PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  if(TARGET devplan::executorch_runtime)
    get_target_property(executorch_links devplan::executorch_runtime INTERFACE_LINK_LIBRARIES)
    foreach(item IN LISTS executorch_links)
      if(item MATCHES "^-Wl,-rpath,(.+)$")
        set_property(TARGET devplan APPEND PROPERTY INSTALL_RPATH "${CMAKE_MATCH_1}")
      elseif(IS_ABSOLUTE "${item}" AND item MATCHES "\\.so(\\.[0-9]+)*$")
        get_filename_component(dir "${item}" DIRECTORY)
        set_property(TARGET devplan APPEND PROPERTY INSTALL_RPATH "${dir}")
      endif()
    endforeach()
  endif()
  install(TARGETS devplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(DEVPLAN_CONFIG_HAS_TOOL ON)
else()
  set(DEVPLAN_CONFIG_HAS_TOOL OFF)
endif()
# devplan_add_budget_test() (cmake/DevplanBudget.cmake), which devplanConfig.cmake includes.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/DevplanBudget.cmake DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR})

# --- Package configuration ------------------------------------------------------------------------
# What devplanConfig.cmake.in must find before it loads the targets: dependencies of the exported
# link interfaces (a static library's private dependencies become $<LINK_ONLY:...> entries).
set(DEVPLAN_CONFIG_NEEDS_GTEST OFF)
if(TARGET devplan_fixtures OR TARGET devplan_mocks_gmock)
  set(DEVPLAN_CONFIG_NEEDS_GTEST ON)
endif()
set(DEVPLAN_CONFIG_NEEDS_RAPIDCHECK OFF)
if(TARGET devplan_scenario_gen)
  set(DEVPLAN_CONFIG_NEEDS_RAPIDCHECK ON)
endif()
set(DEVPLAN_CONFIG_NEEDS_CUDA OFF)
if(TARGET devplan_cuda)
  set(DEVPLAN_CONFIG_NEEDS_CUDA ON)
endif()
set(DEVPLAN_CONFIG_TARGETS)
foreach(target IN LISTS devplan_install_targets)
  get_target_property(export_name ${target} EXPORT_NAME)
  if(NOT export_name)
    message(FATAL_ERROR "devplan install: target ${target} has no EXPORT_NAME property")
  endif()
  list(APPEND DEVPLAN_CONFIG_TARGETS devplan::${export_name})
endforeach()
string(JOIN " " DEVPLAN_CONFIG_TARGETS_TEXT ${DEVPLAN_CONFIG_TARGETS})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/devplanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/devplanConfig.cmake
  INSTALL_DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR}
  PATH_VARS DEVPLAN_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/devplanConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/devplanConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/devplanConfigVersion.cmake
  DESTINATION ${DEVPLAN_INSTALL_CMAKEDIR})

# --- The install test -----------------------------------------------------------------------------
if(PROJECT_IS_TOP_LEVEL AND DEVPLAN_BUILD_TESTS AND TARGET devplan_fixtures)
  add_test(NAME install_consumer
    COMMAND ${CMAKE_COMMAND}
            -DSOURCE=${PROJECT_SOURCE_DIR}/tests/consumer
            -DBUILD=${PROJECT_BINARY_DIR}
            -DCONFIG=$<CONFIG>
            -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
            -DGENERATOR=${CMAKE_GENERATOR}
            "-DCXX_FLAGS=${CMAKE_CXX_FLAGS}"
            "-DLINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
            -P ${PROJECT_SOURCE_DIR}/tests/consumer/run_consumer_test.cmake)
  set_tests_properties(install_consumer PROPERTIES LABELS unit TIMEOUT 300)
endif()

# The ctest `executorch_consumer`: an ExecuTorch developer's project against the installed
# `executorch` component and the wheel (tests/executorch_consumer/).
if(PROJECT_IS_TOP_LEVEL AND DEVPLAN_BUILD_TESTS AND TARGET devplan_executorch_testing AND
   DEVPLAN_EXECUTORCH_FLAVOR STREQUAL "wheel")
  add_test(NAME executorch_consumer
    COMMAND ${CMAKE_COMMAND}
            -DSOURCE=${PROJECT_SOURCE_DIR}/tests/executorch_consumer
            -DBUILD=${PROJECT_BINARY_DIR}
            -DEXECUTORCH_ROOT=${DEVPLAN_EXECUTORCH_ROOT}
            -DPROGRAMS_DIR=${PROJECT_SOURCE_DIR}/fixtures/executorch/exporter
            -DCONFIG=$<CONFIG>
            -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
            -DGENERATOR=${CMAKE_GENERATOR}
            -DLAUNCHER=${DEVPLAN_CCACHE}
            -P ${PROJECT_SOURCE_DIR}/tests/executorch_consumer/run_executorch_consumer_test.cmake)
  set_tests_properties(executorch_consumer PROPERTIES LABELS executorch TIMEOUT 600)
endif()
