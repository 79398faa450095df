# The groups of devplan's targets (the README's layout names the same groups):
#
#   runtime        what a program that loads and runs .pte files links (runtime_ext/core, schema,
#                  program, executor, module, cuda)
#   ahead of time  writing programs, planning their memory, analysing plans (runtime_ext/writer,
#                  planning, analysis)
#   mocks          the tracking and gmock allocators, the simulated device backend (mocks/), and
#                  the test fixtures (fixtures/)
#   harness        the `devplan` tool and its libraries (harness/)
#
# devplan_check_layers() fails the configuration when a runtime target links, directly or
# through another target, any devplan target outside the runtime. Included by the top-level
# CMakeLists.txt and called once every target is defined.

set(DEVPLAN_RUNTIME_TARGETS
  devplan_core devplan_schema devplan_program devplan_executor devplan_module
  devplan_cuda_allocator devplan_cuda)
set(DEVPLAN_AHEAD_OF_TIME_TARGETS
  devplan_writer devplan_planning devplan_graph_gen devplan_analysis)

# The devplan targets that `target` links, directly and through what those link (the real
# names of aliases, generator expressions such as $<LINK_ONLY:...> unwrapped).
function(devplan_linked_targets target out_var)
  set(seen)
  set(pending ${target})
  while(pending)
    list(POP_FRONT pending current)
    set(links)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(type ${current} TYPE)
      if(property STREQUAL "LINK_LIBRARIES" AND type STREQUAL "INTERFACE_LIBRARY")
        continue()
      endif()
      get_target_property(items ${current} ${property})
      if(items)
        list(APPEND links ${items})
      endif()
    endforeach()
    foreach(item IN LISTS links)
      string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" item "${item}")
      if(NOT TARGET "${item}")
        continue()
      endif()
      get_target_property(aliased "${item}" ALIASED_TARGET)
      if(aliased)
        set(item ${aliased})
      endif()
      if(NOT item MATCHES "^devplan" OR item IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${item})
      list(APPEND pending ${item})
    endforeach()
  endwhile()
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()

function(devplan_check_layers)
  set(violations)
  foreach(target IN LISTS DEVPLAN_RUNTIME_TARGETS)
    if(NOT TARGET ${target})
      continue()
    endif()
    devplan_linked_targets(${target} linked)
    foreach(item IN LISTS linked)
      if(NOT item IN_LIST DEVPLAN_RUNTIME_TARGETS)
        list(APPEND violations "${target} links ${item}")
      endif()
    endforeach()
  endforeach()
  if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "devplan: the runtime links targets outside the runtime "
                        "(cmake/DevplanLayers.cmake):\n  ${text}")
  endif()
endfunction()
