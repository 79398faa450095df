# The groups of devplan's targets (the README's layout names the same groups):
#
#   runtime        what a program that loads and runs .pte files links (runtime_ext/core, schema,
#                  program, executor, module, cuda)
#   ahead of time  writing programs, planning their memory, analysing plans (runtime_ext/writer,
#                  planning, analysis)
#   mocks          the tracking and gmock allocators, the simulated device backend (mocks/), and
#                  the test fixtures (fixtures/)
#   harness        the `devplan` tool and its libraries (harness/), itself in layers, one target
#                  per folder (DEVPLAN_HARNESS_LAYERS, lowest first; docs/architecture.md)
#
# devplan_check_layers() fails the configuration when a runtime target links, directly or
# through another target, any devplan target outside the runtime; when a harness folder's target
# links a higher folder's, or a file in it includes a higher folder's header; when harness files
# include each other in a circle (a header and its source count as one); and when a file in
# harness/commands/ is not a command. Included by the
# top-level CMakeLists.txt and called once every target is defined.

set(DEVPLAN_RUNTIME_TARGETS
  devplan_core devplan_schema devplan_program devplan_executor devplan_module
  devplan_cuda_allocator devplan_cuda)
set(DEVPLAN_AHEAD_OF_TIME_TARGETS
  devplan_writer devplan_planning devplan_graph_gen devplan_analysis)

# The harness's folders, lowest first, each with its target: a folder may link and include only
# its own and lower folders. Tests (test/) and benchmarks (bench/) sit above them all.
set(DEVPLAN_HARNESS_LAYERS
  json:devplan_json
  graph:devplan_graph_json
  scenario:devplan_scenario
  values:devplan_harness_values
  engine:devplan_harness_engine
  services:devplan_harness_services
  campaign:devplan_harness_campaign
  output:devplan_harness_output
  options:devplan_harness_options
  commands:devplan_harness_commands
  cli:devplan)

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

# The position of harness folder `folder` in DEVPLAN_HARNESS_LAYERS (-1 when it is none).
function(devplan_harness_layer folder out_var)
  set(position 0)
  foreach(entry IN LISTS DEVPLAN_HARNESS_LAYERS)
    string(REPLACE ":" ";" pair "${entry}")
    list(GET pair 0 name)
    if(name STREQUAL folder)
      set(${out_var} ${position} PARENT_SCOPE)
      return()
    endif()
    math(EXPR position "${position} + 1")
  endforeach()
  set(${out_var} -1 PARENT_SCOPE)
endfunction()

# Appends to `violations` (in the caller) each harness target linking a higher folder's target.
function(devplan_check_harness_links)
  set(found)
  foreach(entry IN LISTS DEVPLAN_HARNESS_LAYERS)
    string(REPLACE ":" ";" pair "${entry}")
    list(GET pair 0 folder)
    list(GET pair 1 target)
    if(NOT TARGET ${target})
      continue()
    endif()
    devplan_harness_layer(${folder} layer)
    devplan_linked_targets(${target} linked)
    foreach(other IN LISTS DEVPLAN_HARNESS_LAYERS)
      string(REPLACE ":" ";" other_pair "${other}")
      list(GET other_pair 0 other_folder)
      list(GET other_pair 1 other_target)
      devplan_harness_layer(${other_folder} other_layer)
      if(other_target IN_LIST linked AND other_layer GREATER layer)
        list(APPEND found "${target} (harness/${folder}) links ${other_target} (harness/${other_folder})")
      endif()
    endforeach()
  endforeach()
  set(violations ${violations} ${found} PARENT_SCOPE)
endfunction()

# Appends to `violations` each include of a higher harness folder's header, each circle of
# includes among the harness's files (a module is a header with its source: path less suffix)
# and each file in commands/ that is no command, for the harness at `root` (tests/layer_check/
# runs it on made-up trees).
function(devplan_check_harness_includes root)
  set(found)
  file(GLOB_RECURSE files RELATIVE ${root} ${root}/*.h ${root}/*.cpp)
  set(modules)
  foreach(file IN LISTS files)
    if(file MATCHES "(^|/)(test|bench)/")
      continue()
    endif()
    # commands/ holds the commands and nothing else: each `devplan` command's source and header.
    if(file MATCHES "^commands/" AND NOT file MATCHES "^commands/[a-z_]+_command\\.(h|cpp)$")
      list(APPEND found "harness/${file} is in harness/commands/ but is no command")
    endif()
    string(REGEX REPLACE "/.*" "" folder "${file}")
    devplan_harness_layer(${folder} layer)
    string(REGEX REPLACE "\\.[a-z]+$" "" module "harness/${file}")
    string(MAKE_C_IDENTIFIER "${module}" key)
    list(APPEND modules ${module})
    file(STRINGS ${root}/${file} includes REGEX "^#include <harness/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include <(harness/[^>]+)>.*" "\\1" header "${line}")
      string(REGEX REPLACE "^harness/([^/]+)/.*" "\\1" included_folder "${header}")
      devplan_harness_layer(${included_folder} included_layer)
      if(included_layer GREATER layer)
        list(APPEND found "harness/${file} includes ${header} (a higher folder)")
      endif()
      string(REGEX REPLACE "\\.[a-z]+$" "" included "${header}")
      if(NOT included STREQUAL module)
        list(APPEND deps_${key} ${included})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES modules)
  # Peel off modules whose includes are all peeled; what remains lies on or behind a circle.
  set(remaining ${modules})
  set(progress TRUE)
  while(progress AND remaining)
    set(progress FALSE)
    set(next)
    foreach(module IN LISTS remaining)
      string(MAKE_C_IDENTIFIER "${module}" key)
      set(blocked FALSE)
      foreach(dep IN LISTS deps_${key})
        if(dep IN_LIST remaining)
          set(blocked TRUE)
          break()
        endif()
      endforeach()
      if(blocked)
        list(APPEND next ${module})
      else()
        set(progress TRUE)
      endif()
    endforeach()
    set(remaining ${next})
  endwhile()
  # Then those that no remaining module includes: what is left lies on a circle.
  set(progress TRUE)
  while(progress AND remaining)
    set(progress FALSE)
    set(included_by_remaining)
    foreach(module IN LISTS remaining)
      string(MAKE_C_IDENTIFIER "${module}" key)
      list(APPEND included_by_remaining ${deps_${key}})
    endforeach()
    set(next)
    foreach(module IN LISTS remaining)
      if(module IN_LIST included_by_remaining)
        list(APPEND next ${module})
      else()
        set(progress TRUE)
      endif()
    endforeach()
    set(remaining ${next})
  endwhile()
  foreach(module IN LISTS remaining)
    string(MAKE_C_IDENTIFIER "${module}" key)
    set(into)
    foreach(dep IN LISTS deps_${key})
      if(dep IN_LIST remaining)
        list(APPEND into ${dep})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES into)
    list(JOIN into ", " into_text)
    list(APPEND found "${module} is in a circle of includes (it includes ${into_text})")
  endforeach()
  set(violations ${violations} ${found} PARENT_SCOPE)
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
  devplan_check_harness_links()
  devplan_check_harness_includes(${PROJECT_SOURCE_DIR}/harness)
  if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "devplan: the harness's layers are crossed upward, in a circle or misplaced "
                        "(cmake/DevplanLayers.cmake, docs/architecture.md):\n  ${text}")
  endif()
endfunction()
