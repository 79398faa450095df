# Test registration. Every GoogleTest case is its own ctest entry (gtest_discover_tests) with
# the labels of its binary. fuzz, soak and explore tests exist only with DEVPLAN_LONG_TESTS=ON,
# since a plain ctest run cannot exclude labels (explore entries: property_tests/CMakeLists.txt).
if(NOT DEVPLAN_BUILD_TESTS)
  return()
endif()
enable_testing()
find_package(GTest REQUIRED)
include(GoogleTest)

# devplan_add_gtest(NAME LABEL <label> SOURCES <files...> LIBS <targets...>
#                   [PROPERTIES <ctest properties...>])
function(devplan_add_gtest name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;LIBS;PROPERTIES" ${ARGN})
  if(NOT ARG_LABEL MATCHES "^(unit|property|cuda|executorch|fuzz|soak)$")
    message(FATAL_ERROR "devplan_add_gtest(${name}): LABEL must be unit, property, cuda, executorch, fuzz or soak")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gmock GTest::gtest_main)
  if(ARG_LABEL MATCHES "^(fuzz|soak)$" AND NOT DEVPLAN_LONG_TESTS)
    return()
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS ${ARG_LABEL} ${ARG_PROPERTIES})
endfunction()
