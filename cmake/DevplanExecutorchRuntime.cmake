# devplan_find_executorch_runtime(ROOT): finds ExecuTorch's C++ runtime under ROOT and defines
# the imported interface target devplan::executorch_runtime (headers, compile definitions and
# libraries, kernels kept linked so their static registrations run). Used by this build
# (cmake/DevplanExecutorch.cmake) and by the installed package's `executorch` component
# (devplanConfig.cmake), so both link ExecuTorch the same way.
#
# ROOT is either
#   - the executorch wheel, unpacked (ROOT/share/cmake/executorch-config.cmake): found through
#     the package's variables (EXECUTORCH_INCLUDE_DIRS, EXECUTORCH_COMPILE_DEFINITIONS,
#     EXECUTORCH_LIBRARIES, EXECUTORCH_RUNTIME_LIBRARY_DIR), since CMake older than 3.28 gets no
#     imported targets from it; or
#   - the install tree of an ExecuTorch source build (ROOT/lib/cmake/ExecuTorch/
#     executorch-config.cmake): plain imported targets executorch_core, executorch (the prim
#     ops), extension_module_static, extension_data_loader, portable_ops_lib, portable_kernels.
#     Its kernel libraries carry their own whole-archive link options, so they are linked as
#     they are.
#
# Sets in the caller's scope:
#   DEVPLAN_EXECUTORCH_FOUND    TRUE or FALSE
#   DEVPLAN_EXECUTORCH_FLAVOR   "wheel" or "source"
#   DEVPLAN_EXECUTORCH_VERSION  the wheel's version ("1.5.1+cpu"), or the source build's
#                               (ET_VERSION of its include/executorch/runtime/core/version.h,
#                               "1.5.0"; ", commit <c>" when DEVPLAN_EXECUTORCH_COMMIT is set)
#   DEVPLAN_EXECUTORCH_WHY      why nothing was found (when not found)
# and puts DEVPLAN_EXECUTORCH_SOURCE_BUILD=0|1 and DEVPLAN_EXECUTORCH_VERSION="..." on the
# target (executorch_testing/executorch_compat.h reads them).

function(_devplan_executorch_define_target flavor version)
  add_library(devplan::executorch_runtime INTERFACE IMPORTED GLOBAL)
  if(flavor STREQUAL "source")
    set(source_build 1)
  else()
    set(source_build 0)
  endif()
  set_property(TARGET devplan::executorch_runtime APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
    DEVPLAN_EXECUTORCH_SOURCE_BUILD=${source_build}
    "DEVPLAN_EXECUTORCH_VERSION=\"${version}\"")
endfunction()

function(devplan_find_executorch_runtime root)
  set(DEVPLAN_EXECUTORCH_FOUND FALSE PARENT_SCOPE)
  set(DEVPLAN_EXECUTORCH_FLAVOR "" PARENT_SCOPE)
  set(DEVPLAN_EXECUTORCH_VERSION "" PARENT_SCOPE)
  if(TARGET devplan::executorch_runtime)
    message(FATAL_ERROR "devplan_find_executorch_runtime: devplan::executorch_runtime is already defined")
  endif()

  # --- The wheel --------------------------------------------------------------------------------
  if(EXISTS "${root}/share/cmake/executorch-config.cmake")
    find_package(executorch CONFIG QUIET PATHS "${root}/share/cmake" NO_DEFAULT_PATH)
    if(NOT (executorch_FOUND AND EXECUTORCH_LIBRARIES AND EXECUTORCH_RUNTIME_LIBRARY_DIR))
      set(DEVPLAN_EXECUTORCH_WHY
        "the executorch package at ${root}/share/cmake gave no runtime library" PARENT_SCOPE)
      return()
    endif()
    set(version "${EXECUTORCH_BUILD_VERSION}")
    if(NOT version)
      set(version "${executorch_VERSION}")
    endif()
    _devplan_executorch_define_target(wheel "${version}")
    # SYSTEM: ExecuTorch's headers are not ours to keep warning-free.
    set_target_properties(devplan::executorch_runtime PROPERTIES
      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${EXECUTORCH_INCLUDE_DIRS}"
      INTERFACE_INCLUDE_DIRECTORIES "${EXECUTORCH_INCLUDE_DIRS}")
    set_property(TARGET devplan::executorch_runtime APPEND PROPERTY
      INTERFACE_COMPILE_DEFINITIONS ${EXECUTORCH_COMPILE_DEFINITIONS})
    # The absolute RPATH keeps an installed binary finding the wheel's libraries; the Python
    # package's tool finds them through a relative one instead (cmake/DevplanPython.cmake).
    set(rpath "-Wl,-rpath,${EXECUTORCH_RUNTIME_LIBRARY_DIR}")
    if(DEVPLAN_PYTHON_PACKAGE)
      set(rpath "")
    endif()
    set_property(TARGET devplan::executorch_runtime PROPERTY INTERFACE_LINK_LIBRARIES
      ${EXECUTORCH_LIBRARIES} ${rpath})
    set(DEVPLAN_EXECUTORCH_FOUND TRUE PARENT_SCOPE)
    set(DEVPLAN_EXECUTORCH_FLAVOR wheel PARENT_SCOPE)
    set(DEVPLAN_EXECUTORCH_VERSION "${version}" PARENT_SCOPE)
    return()
  endif()

  # --- The install tree of a source build ---------------------------------------------------------
  set(config_dir "")
  foreach(candidate lib/cmake/ExecuTorch lib64/cmake/ExecuTorch lib/cmake/executorch share/cmake)
    if(EXISTS "${root}/${candidate}/executorch-config.cmake" OR
       EXISTS "${root}/${candidate}/ExecuTorchConfig.cmake")
      set(config_dir "${root}/${candidate}")
      break()
    endif()
  endforeach()
  if(NOT config_dir)
    set(DEVPLAN_EXECUTORCH_WHY
      "${root} holds neither the executorch wheel (share/cmake/executorch-config.cmake) nor the "
      "install tree of an ExecuTorch source build (lib/cmake/ExecuTorch/executorch-config.cmake)"
      PARENT_SCOPE)
    return()
  endif()
  # Its config lists every optional library it does not find, one plain message each: keep
  # configure's output to devplan's one line about it (this variable is local to the function).
  set(CMAKE_MESSAGE_LOG_LEVEL WARNING)
  find_package(executorch CONFIG QUIET PATHS "${config_dir}" NO_DEFAULT_PATH)
  unset(CMAKE_MESSAGE_LOG_LEVEL)
  if(NOT TARGET executorch_core)
    set(DEVPLAN_EXECUTORCH_WHY
      "the ExecuTorch package at ${config_dir} defines no target executorch_core" PARENT_SCOPE)
    return()
  endif()
  set(missing "")
  foreach(needed executorch extension_module_static extension_data_loader portable_ops_lib
                 portable_kernels)
    if(NOT TARGET ${needed})
      list(APPEND missing ${needed})
    endif()
  endforeach()
  if(missing)
    string(JOIN ", " missing_text ${missing})
    set(DEVPLAN_EXECUTORCH_WHY
      "the ExecuTorch source build at ${root} lacks ${missing_text} (build it with "
      "EXECUTORCH_BUILD_EXTENSION_MODULE, EXECUTORCH_BUILD_EXTENSION_DATA_LOADER and "
      "EXECUTORCH_BUILD_PORTABLE_OPS on)" PARENT_SCOPE)
    return()
  endif()
  # The version: ET_VERSION from the install's version.h (the wheel has no such header), and
  # the commit when the caller names it (an install tree does not record one).
  set(version "unknown version")
  set(version_header "${root}/include/executorch/runtime/core/version.h")
  if(EXISTS "${version_header}")
    file(STRINGS "${version_header}" version_line REGEX "^#define ET_VERSION \"")
    string(REGEX REPLACE "^#define ET_VERSION \"([^\"]*)\".*" "\\1" version "${version_line}")
  elseif(executorch_VERSION)
    set(version "${executorch_VERSION}")
  endif()
  if(DEVPLAN_EXECUTORCH_COMMIT)
    string(APPEND version ", commit ${DEVPLAN_EXECUTORCH_COMMIT}")
  endif()
  _devplan_executorch_define_target(source "${version}")
  # Kernel libraries (portable_ops_lib, optimized_ops_lib) and `executorch` (the prim ops)
  # register from static initialisers; their exported link options keep them whole.
  set(libs extension_module_static extension_data_loader portable_ops_lib portable_kernels
           executorch executorch_core)
  foreach(optional extension_flat_tensor extension_named_data_map extension_tensor
                   optimized_ops_lib)
    if(TARGET ${optional})
      list(APPEND libs ${optional})
    endif()
  endforeach()
  set_property(TARGET devplan::executorch_runtime PROPERTY INTERFACE_LINK_LIBRARIES ${libs})
  set(DEVPLAN_EXECUTORCH_FOUND TRUE PARENT_SCOPE)
  set(DEVPLAN_EXECUTORCH_FLAVOR source PARENT_SCOPE)
  set(DEVPLAN_EXECUTORCH_VERSION "${version}" PARENT_SCOPE)
endfunction()
