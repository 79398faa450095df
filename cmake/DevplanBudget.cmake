# devplan_add_budget_test: the memory-budget gate of `devplan budget check` as a ctest entry.
#
#   devplan_add_budget_test(NAME BUDGET FILE... [ARGS ARG...])
#
#   find_package(devplan REQUIRED)
#   devplan_add_budget_test(model_budget budget.json export/model.pte export/encoder.pte)
#   devplan_add_budget_test(model_budget_5pct budget.json export/model.pte ARGS --tolerance 5)
#
# registers the test NAME running `devplan budget check BUDGET FILE... ARG...` with the devplan
# tool of the package (the imported executable devplan::devplan; inside devplan's own tree, the
# tool it builds). Relative paths are taken from the current source folder. The test fails when
# a figure grew beyond the budget (the output names the program, method, buffer and growth, and
# the command that accepts the change), or on an error (a program missing from the budget, a
# budget entry without its file, a program that does not load). It carries the labels
# `devplan` and `budget`, so `ctest -L budget` runs the gates alone.
#
# Record the budget once and commit it with the programs:
#
#   devplan budget record export/model.pte export/encoder.pte -o budget.json
function(devplan_add_budget_test name budget)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "ARGS")
  set(files ${arg_UNPARSED_ARGUMENTS})
  if(NOT files)
    message(FATAL_ERROR
      "devplan_add_budget_test(${name} ${budget}): name at least one program file after the "
      "budget (devplan_add_budget_test(NAME BUDGET FILE... [ARGS ARG...]))")
  endif()
  if(NOT TARGET devplan::devplan)
    message(FATAL_ERROR
      "devplan_add_budget_test(${name}): the devplan tool (target devplan::devplan) is not "
      "available; this devplan package was installed without bin/devplan")
  endif()
  set(paths)
  foreach(path IN LISTS budget files)
    if(NOT IS_ABSOLUTE "${path}")
      set(path "${CMAKE_CURRENT_SOURCE_DIR}/${path}")
    endif()
    list(APPEND paths "${path}")
  endforeach()
  add_test(NAME ${name} COMMAND $<TARGET_FILE:devplan::devplan> budget check ${paths} ${arg_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "devplan;budget")
endfunction()
