// One execution of a method, as `devplan run` does it: the outputs read back to the host, and
// the leaks and misuse found when the method was unloaded.
#pragma once

#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/engine.h>
#include <harness/engine/program_image.h>
#include <harness/engine/run_report.h>
#include <harness/services/memory_ceilings.h>

namespace devplan::harness {

// Executes `method` (the first method when empty) of the program in `file` on `device`'s devices
// with `inputs` (see `devplan run --input`; missing inputs are ones). `usage_error` is
// set when the failure is the caller's (an unknown method, bad input text). With `missing`, a
// method the engine cannot load or execute for want of a kernel or backend sets it to what the
// engine lacks (the engine's MissingCapability); it is left empty otherwise.
Result<RunReport> run_program(const std::string& file, const std::string& method,
                              const std::vector<std::string>& inputs, bool* usage_error,
                              const DeviceSetup& device = DeviceSetup(),
                              RuntimeKind runtime = RuntimeKind::Devplan,
                              const MemoryCeilings& ceilings = MemoryCeilings(),
                              const std::vector<std::string>& data_paths = {},
                              MissingCapability* missing = nullptr);

// run_program over a program already opened: `image`, named `file` in errors.
Result<RunReport> run_program_image(const ProgramImage& image, const std::string& file,
                                    const std::string& method,
                                    const std::vector<std::string>& inputs, bool* usage_error,
                                    const DeviceSetup& device, RuntimeKind runtime,
                                    const MemoryCeilings& ceilings,
                                    const std::vector<std::string>& data_paths,
                                    MissingCapability* missing = nullptr);

}  // namespace devplan::harness
