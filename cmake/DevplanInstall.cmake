# Install rules and the CMake package: filled in by issue 8.
