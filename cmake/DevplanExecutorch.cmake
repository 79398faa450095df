# DEVPLAN_WITH_EXECUTORCH: AUTO uses ExecuTorch's C++ runtime when it is found under
# DEVPLAN_EXECUTORCH_ROOT, ON requires it, OFF never uses it. DEVPLAN_EXECUTORCH_ROOT is the
# executorch 1.5.1 wheel that scripts/bootstrap.sh installs into .deps/executorch (the default),
# or the install prefix of an ExecuTorch source build (its CMake package in lib/cmake/ExecuTorch).
# Sets DEVPLAN_HAVE_EXECUTORCH and, when ON, the target devplan::executorch_runtime
# (cmake/DevplanExecutorchRuntime.cmake, which says how each kind is linked).
set(DEVPLAN_HAVE_EXECUTORCH OFF)
if(NOT DEVPLAN_WITH_EXECUTORCH MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DEVPLAN_WITH_EXECUTORCH must be AUTO, ON or OFF, not '${DEVPLAN_WITH_EXECUTORCH}'")
endif()
set(DEVPLAN_EXECUTORCH_ROOT "${PROJECT_SOURCE_DIR}/.deps/executorch/executorch"
    CACHE PATH "ExecuTorch's C++ runtime: the executorch wheel's package folder (.deps/executorch/executorch) or the install prefix of an ExecuTorch source build")

set(DEVPLAN_EXECUTORCH_COMMIT "" CACHE STRING
    "The commit a source build of ExecuTorch was made from, for configure's line and reports (an install tree does not record it)")

include(${CMAKE_CURRENT_LIST_DIR}/DevplanExecutorchRuntime.cmake)

if(NOT DEVPLAN_WITH_EXECUTORCH STREQUAL "OFF")
  devplan_find_executorch_runtime("${DEVPLAN_EXECUTORCH_ROOT}")
  if(DEVPLAN_EXECUTORCH_FOUND)
    set(DEVPLAN_HAVE_EXECUTORCH ON)
  elseif(DEVPLAN_WITH_EXECUTORCH STREQUAL "ON")
    message(FATAL_ERROR
      "DEVPLAN_WITH_EXECUTORCH=ON but ExecuTorch's C++ runtime was not found: ${DEVPLAN_EXECUTORCH_WHY} "
      "(run scripts/bootstrap.sh, which installs the executorch 1.5.1 wheel into .deps/executorch, "
      "or point DEVPLAN_EXECUTORCH_ROOT at the install prefix of an ExecuTorch source build)")
  endif()
endif()
if(DEVPLAN_HAVE_EXECUTORCH)
  if(DEVPLAN_EXECUTORCH_FLAVOR STREQUAL "wheel")
    set(devplan_executorch_found_text "the executorch ${DEVPLAN_EXECUTORCH_VERSION} wheel")
  else()
    set(devplan_executorch_found_text "an ExecuTorch source build, version ${DEVPLAN_EXECUTORCH_VERSION}")
  endif()
  message(STATUS "devplan: ExecuTorch engine ON: ${devplan_executorch_found_text} at ${DEVPLAN_EXECUTORCH_ROOT}")
elseif(DEVPLAN_WITH_EXECUTORCH STREQUAL "OFF")
  message(STATUS "devplan: ExecuTorch engine OFF (DEVPLAN_WITH_EXECUTORCH=OFF)")
else()
  message(STATUS "devplan: ExecuTorch engine OFF: ${DEVPLAN_EXECUTORCH_WHY}")
endif()
