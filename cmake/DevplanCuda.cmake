# DEVPLAN_WITH_CUDA: AUTO builds the CUDA parts when the toolkit is found, ON requires it,
# OFF never builds them. Sets DEVPLAN_HAVE_CUDA.
#
# CUDA architectures: a CMAKE_CUDA_ARCHITECTURES (or CUDAARCHS environment variable) given by
# the user, or by a parent project, is used as given. Otherwise, at the first configure of a
# build folder:
#   native      when a GPU is usable here: the toolkit's own device query
#               (bin/__nvcc_device_query, what `nvcc -arch=native` runs) or, without it,
#               `nvidia-smi --query-gpu=compute_cap` finds one, and the toolkit supports its
#               architecture (`nvcc --list-gpu-code`); "native" fails the build without a GPU,
#               hence the check first.
#   all-major   otherwise: real code for every major architecture of the toolkit plus PTX for
#               the newest. CMake 3.25 hands it to nvcc as -arch=all-major, so the toolkit
#               picks: with CUDA 13.0 sm_75, 80, 90, 100, 110, 120 and compute_120 PTX. There
#               is one .cu file (runtime_ext/cuda/elementwise_add_kernel.cu): about 4 s to
#               compile instead of 1 s for a single architecture.
# The choice is kept in the cache (DEVPLAN_CUDA_ARCHITECTURES_AUTO remembers that it was ours)
# and one STATUS line says which and why. Build folders configured before this rule keep the
# value CMake cached for them (its default, 75 with CUDA 13); pass
# -DCMAKE_CUDA_ARCHITECTURES=... or use a fresh folder.
set(DEVPLAN_HAVE_CUDA OFF)
if(NOT DEVPLAN_WITH_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DEVPLAN_WITH_CUDA must be AUTO, ON or OFF, not '${DEVPLAN_WITH_CUDA}'")
endif()

# devplan_detect_cuda_gpu(<out_archs> <out_how>): the compute capabilities ("90;86") of the GPUs
# usable here, empty without one; <out_how> names the probe.
function(devplan_detect_cuda_gpu out_archs out_how)
  set(archs "")
  set(how "")
  get_filename_component(nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  if(EXISTS "${nvcc_dir}/__nvcc_device_query")
    set(how "__nvcc_device_query")
    execute_process(COMMAND "${nvcc_dir}/__nvcc_device_query"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+" archs "${out}")
    endif()
  else()
    find_program(DEVPLAN_NVIDIA_SMI nvidia-smi)
    mark_as_advanced(DEVPLAN_NVIDIA_SMI)
    if(DEVPLAN_NVIDIA_SMI)
      set(how "nvidia-smi")
      execute_process(COMMAND "${DEVPLAN_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 30)
      if(rc EQUAL 0)
        string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${out}")
        foreach(cap IN LISTS caps)
          string(REPLACE "." "" cap "${cap}")
          list(APPEND archs ${cap})
        endforeach()
      endif()
    else()
      set(how "no nvidia-smi")
    endif()
  endif()
  list(REMOVE_DUPLICATES archs)
  set(${out_archs} "${archs}" PARENT_SCOPE)
  set(${out_how} "${how}" PARENT_SCOPE)
endfunction()

# devplan_choose_cuda_architectures(): before enable_language(CUDA); see the top of this file.
function(devplan_choose_cuda_architectures)
  if(DEFINED CACHE{DEVPLAN_CUDA_ARCHITECTURES_AUTO}
     AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{DEVPLAN_CUDA_ARCHITECTURES_AUTO}")
    message(STATUS "devplan: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} "
                   "(${DEVPLAN_CUDA_ARCHITECTURES_REASON}; chosen at this folder's first configure)")
    return()
  endif()
  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
    unset(DEVPLAN_CUDA_ARCHITECTURES_AUTO CACHE)
    message(STATUS "devplan: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (CMAKE_CUDA_ARCHITECTURES as given)")
    return()
  endif()
  if(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    unset(DEVPLAN_CUDA_ARCHITECTURES_AUTO CACHE)
    message(STATUS "devplan: CUDA architectures $ENV{CUDAARCHS} (the CUDAARCHS environment variable)")
    return()
  endif()

  devplan_detect_cuda_gpu(gpu_archs how)
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code
    RESULT_VARIABLE rc OUTPUT_VARIABLE codes ERROR_QUIET TIMEOUT 30)
  string(REGEX MATCHALL "sm_[0-9]+" toolkit_archs "${codes}")
  list(TRANSFORM toolkit_archs REPLACE "^sm_" "")
  set(unsupported "")
  foreach(arch IN LISTS gpu_archs)
    if(NOT arch IN_LIST toolkit_archs)
      list(APPEND unsupported "sm_${arch}")
    endif()
  endforeach()
  string(REPLACE ";" ", sm_" gpu_text "sm_${gpu_archs}")
  if(gpu_archs AND NOT unsupported)
    set(choice native)
    set(reason "a GPU is present (${gpu_text}, found by ${how})")
  elseif(gpu_archs)
    set(choice all-major)
    string(REPLACE ";" ", " unsupported "${unsupported}")
    set(reason "the GPU here (${unsupported}) is not supported by this toolkit, so the toolkit's major architectures")
  else()
    set(choice all-major)
    set(reason "no GPU found (${how}), so the toolkit's major architectures")
  endif()

  set(DEVPLAN_CUDA_ARCHITECTURES_AUTO "${choice}" CACHE INTERNAL
      "The CMAKE_CUDA_ARCHITECTURES that cmake/DevplanCuda.cmake chose")
  set(DEVPLAN_CUDA_ARCHITECTURES_REASON "${reason}" CACHE INTERNAL
      "Why cmake/DevplanCuda.cmake chose DEVPLAN_CUDA_ARCHITECTURES_AUTO")
  if(PROJECT_IS_TOP_LEVEL)
    set(CMAKE_CUDA_ARCHITECTURES "${choice}" CACHE STRING
        "CUDA architectures (devplan's default: native with a GPU, else all-major)" FORCE)
  else()
    # Inside another project: for devplan's targets only (this directory and below), not as
    # a cache entry that the parent's CUDA targets would pick up.
    set(CMAKE_CUDA_ARCHITECTURES "${choice}" PARENT_SCOPE)
  endif()
  message(STATUS "devplan: CUDA architectures ${choice} (${reason})")
endfunction()

if(NOT DEVPLAN_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    devplan_choose_cuda_architectures()
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    set(DEVPLAN_HAVE_CUDA ON)
    if(PROJECT_IS_TOP_LEVEL)
      set(CMAKE_CUDA_STANDARD 17)
      set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    endif()
  elseif(DEVPLAN_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "DEVPLAN_WITH_CUDA=ON but no CUDA toolkit was found (looked for /usr/local/cuda/bin/nvcc)")
  endif()
endif()
message(STATUS "devplan: CUDA parts ${DEVPLAN_HAVE_CUDA} (DEVPLAN_WITH_CUDA=${DEVPLAN_WITH_CUDA})")
