# ctest `layer_check`: devplan_check_harness_includes (cmake/DevplanLayers.cmake) on made-up harness
# trees: a clean one passes; an upward include, a circle and a stray file in commands/ are each
# named exactly. Run as: cmake -DDEVPLAN_SOURCE=<repo> -DWORK=<dir> -P run_layer_check_test.cmake
cmake_minimum_required(VERSION 3.25)
include(${DEVPLAN_SOURCE}/cmake/DevplanLayers.cmake)

function(write_tree root)
  file(REMOVE_RECURSE ${root})
  file(WRITE ${root}/values/number.h "#pragma once\n")
  file(WRITE ${root}/values/number.cpp "#include <harness/values/number.h>\n")
  file(WRITE ${root}/engine/engine.h "#pragma once\n#include <harness/values/number.h>\n")
  file(WRITE ${root}/commands/run_command.h "#pragma once\n#include <harness/engine/engine.h>\n")
  file(WRITE ${root}/commands/run_command.cpp "#include <harness/commands/run_command.h>\n")
  # Tests may include anything.
  file(WRITE ${root}/engine/test/engine_test.cpp "#include <harness/commands/run_command.h>\n")
endfunction()

function(expect_violations root)
  set(violations)
  devplan_check_harness_includes(${root})
  if(NOT "${violations}" STREQUAL "${ARGN}")
    list(JOIN violations "\n  " got)
    list(JOIN ARGN "\n  " want)
    message(FATAL_ERROR "layer_check: ${root}:\n got\n  ${got}\n want\n  ${want}")
  endif()
endfunction()

set(root ${WORK}/harness)

write_tree(${root})
expect_violations(${root})

write_tree(${root})
file(APPEND ${root}/values/number.cpp "#include <harness/engine/engine.h>\n")
expect_violations(${root}
  "harness/values/number.cpp includes harness/engine/engine.h (a higher folder)"
  "harness/engine/engine is in a circle of includes (it includes harness/values/number)"
  "harness/values/number is in a circle of includes (it includes harness/engine/engine)")

write_tree(${root})
file(WRITE ${root}/engine/session.h "#pragma once\n#include <harness/engine/engine.h>\n")
file(APPEND ${root}/engine/engine.h "#include <harness/engine/session.h>\n")
expect_violations(${root}
  "harness/engine/engine is in a circle of includes (it includes harness/engine/session)"
  "harness/engine/session is in a circle of includes (it includes harness/engine/engine)")

write_tree(${root})
file(WRITE ${root}/commands/option_helpers.h "#pragma once\n")
file(WRITE ${root}/commands/commands.h "#pragma once\n")
expect_violations(${root}
  "harness/commands/commands.h is in harness/commands/ but is no command"
  "harness/commands/option_helpers.h is in harness/commands/ but is no command")

file(REMOVE_RECURSE ${WORK})
message(STATUS "layer_check: 4 trees, each judged as expected")
