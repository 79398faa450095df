# DEVPLAN_PYTHON_PACKAGE: the build that scikit-build-core runs for `pip install .`
# (pyproject.toml turns it on; docs/python.md). It installs, in the component `python`, the
# `devplan` tool as devplan/bin/devplan inside the Python package, and devplan/_build.json,
# which tells the package's launcher whether the tool needs ExecuTorch's libraries.
#
# The tool finds those libraries in the executorch 1.5.1 wheel installed beside the package
# (site-packages/executorch/lib), through an RPATH relative to itself: nothing absolute, from
# this machine, goes into the wheel. The launcher (python/devplan/_tool.py) also puts the
# wheel's lib folder on LD_LIBRARY_PATH when executorch is installed somewhere else on sys.path.
if(NOT TARGET devplan)
  message(FATAL_ERROR "DEVPLAN_PYTHON_PACKAGE=ON needs the devplan tool's target")
endif()

if(DEVPLAN_HAVE_EXECUTORCH)
  set_target_properties(devplan PROPERTIES INSTALL_RPATH "\$ORIGIN/../../executorch/lib")
  set(devplan_python_executorch "\"${DEVPLAN_EXECUTORCH_VERSION}\"")
else()
  set(devplan_python_executorch "null")
endif()
install(TARGETS devplan RUNTIME DESTINATION devplan/bin COMPONENT python)

# What the launcher reads before it starts the tool.
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/python/_build.json" CONTENT
"{\"devplan_version\": \"${PROJECT_VERSION}\", \"executorch\": ${devplan_python_executorch}}
")
install(FILES "${PROJECT_BINARY_DIR}/python/_build.json" DESTINATION devplan COMPONENT python)
