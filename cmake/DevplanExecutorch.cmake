# DEVPLAN_WITH_EXECUTORCH: AUTO uses ExecuTorch's C++ runtime (the `executorch` 1.5.1 wheel that
# scripts/bootstrap.sh installs into .deps/executorch) when it is found, ON requires it, OFF never
# uses it. Sets DEVPLAN_HAVE_EXECUTORCH and, when ON, the interface target
# devplan::executorch_runtime (headers, definitions and the wheel's shared libraries, with the
# kernels kept linked so their static registrations run).
#
# CMake older than 3.28 gets no imported targets from the wheel's package (its config says why),
# so this goes through the package's variables: EXECUTORCH_INCLUDE_DIRS,
# EXECUTORCH_COMPILE_DEFINITIONS, EXECUTORCH_LIBRARIES and EXECUTORCH_RUNTIME_LIBRARY_DIR.
set(DEVPLAN_HAVE_EXECUTORCH OFF)
if(NOT DEVPLAN_WITH_EXECUTORCH MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DEVPLAN_WITH_EXECUTORCH must be AUTO, ON or OFF, not '${DEVPLAN_WITH_EXECUTORCH}'")
endif()
set(DEVPLAN_EXECUTORCH_ROOT "${PROJECT_SOURCE_DIR}/.deps/executorch/executorch"
    CACHE PATH "Where the executorch wheel is unpacked (the folder holding share/cmake/executorch-config.cmake)")

if(NOT DEVPLAN_WITH_EXECUTORCH STREQUAL "OFF")
  find_package(executorch CONFIG QUIET
    PATHS "${DEVPLAN_EXECUTORCH_ROOT}/share/cmake" NO_DEFAULT_PATH)
  if(executorch_FOUND AND EXECUTORCH_LIBRARIES AND EXECUTORCH_RUNTIME_LIBRARY_DIR)
    set(DEVPLAN_HAVE_EXECUTORCH ON)
  elseif(DEVPLAN_WITH_EXECUTORCH STREQUAL "ON")
    message(FATAL_ERROR
      "DEVPLAN_WITH_EXECUTORCH=ON but ExecuTorch's C++ runtime was not found under "
      "${DEVPLAN_EXECUTORCH_ROOT} (run scripts/bootstrap.sh, which installs the executorch 1.5.1 wheel there)")
  endif()
endif()

if(DEVPLAN_HAVE_EXECUTORCH)
  add_library(devplan_executorch_runtime INTERFACE)
  add_library(devplan::executorch_runtime ALIAS devplan_executorch_runtime)
  # SYSTEM: the wheel's headers are not ours to keep warning-free.
  target_include_directories(devplan_executorch_runtime SYSTEM INTERFACE ${EXECUTORCH_INCLUDE_DIRS})
  target_compile_definitions(devplan_executorch_runtime INTERFACE ${EXECUTORCH_COMPILE_DEFINITIONS})
  target_link_libraries(devplan_executorch_runtime INTERFACE ${EXECUTORCH_LIBRARIES}
    "-Wl,-rpath,${EXECUTORCH_RUNTIME_LIBRARY_DIR}")
endif()
message(STATUS "devplan: ExecuTorch engine ${DEVPLAN_HAVE_EXECUTORCH} (DEVPLAN_WITH_EXECUTORCH=${DEVPLAN_WITH_EXECUTORCH})")
