// Options that several `devplan` commands share, declared on the command's CLI11 app. Each is
// checked while parsing (a bad value is a usage error naming the option) and bound to its
// typed variable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>
#include <harness/options/command_line.h>
#include <mocks/unload_bug_allocator.h>

namespace devplan::harness {

// FILE: the program to read, required.
CLI::Option* add_program_argument(CLI::App& app, std::string& file);
// --json: print one JSON document instead of text.
CLI::Option* add_json_flag(CLI::App& app, bool& json);
// --runtime devplan|executorch (default devplan).
CLI::Option* add_runtime_option(CLI::App& app, RuntimeKind& runtime);
// The --inject-bug values: skip-free, double-free or wrong-index-free; InvalidArgument
// otherwise (None is not a bug to inject).
Result<UnloadBug> parse_injected_bug(const std::string& text);

// The --backing values: unbacked or host; InvalidArgument otherwise.
Result<DeviceBacking> parse_device_backing(const std::string& text);

// A percentage as --fail-on-growth and --tolerance take it: a finite number, zero or above
// ("3", "2.5", "0"); InvalidArgument naming the text otherwise.
Result<double> parse_percent(const std::string& text);

// `name` PCT, checked by parse_percent, stored in `pct`.
CLI::Option* add_percent_option(CLI::App& app, const std::string& name, std::optional<double>& pct,
                                const std::string& description);

// --data FILE.ptd, repeatable: the data files that hold the program's external tensors.
CLI::Option* add_data_option(CLI::App& app, std::vector<std::string>& paths);

// --device simulated|cuda (default simulated) and --device-map PLANNED=PRESENT (repeatable; a
// planned device mapped twice is refused when the environment is made).
void add_device_options(CLI::App& app, DeviceSetup& device);

}  // namespace devplan::harness
