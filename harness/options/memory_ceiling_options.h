// --max-device-allocation SIZE and --max-host-buffer SIZE, the memory ceilings of simulate, run
// and report.
#pragma once

#include <harness/options/command_line.h>
#include <harness/services/memory_ceilings.h>

namespace devplan::harness {

void add_memory_ceiling_options(CLI::App& app, MemoryCeilings& ceilings);

}  // namespace devplan::harness
