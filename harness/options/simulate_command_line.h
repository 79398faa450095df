// What `devplan simulate` was asked to do, read from its command line.
//
//   SimulateCommandLine c;
//   std::unique_ptr<CLI::App> app = simulate_app(c);   // parse the arguments into c
//   simulate_program(image, c.options);
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include <harness/services/simulation.h>

namespace devplan::harness {

struct SimulateCommandLine {
  std::string file;
  SimulationOptions options;
  bool json = false;
  std::string timeline_svg;  // --timeline-svg OUT.svg
  std::string junit;         // --junit OUT.xml
  std::string trace;         // --trace OUT.json
};

// The `simulate` command's parser, filling `c`.
std::unique_ptr<CLI::App> simulate_app(SimulateCommandLine& c);

}  // namespace devplan::harness
