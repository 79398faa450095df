#include <harness/options/command_options.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace devplan::harness {

CLI::Option* add_program_argument(CLI::App& app, std::string& file) {
  return app.add_option("FILE", file, "the program (.pte)")->required();
}

CLI::Option* add_json_flag(CLI::App& app, bool& json) {
  return app.add_flag("--json", json, "print one JSON document instead of text");
}

CLI::Option* add_runtime_option(CLI::App& app, RuntimeKind& runtime) {
  return app
      .add_option_function<std::string>(
          "--runtime", [&runtime](const std::string& text) { runtime = *parse_runtime_kind(text); },
          "the engine that loads the program: devplan (runtime_ext, default) or executorch "
          "(ExecuTorch 1.5.1's runtime)")
      ->type_name("devplan|executorch")
      ->check(cli::checked_by(&parse_runtime_kind));
}

CLI::Option* add_data_option(CLI::App& app, std::vector<std::string>& paths) {
  return cli::add_repeated_option(app, "--data", paths,
                                  "a data file (.ptd) holding external tensors of the program "
                                  "(its constants kept outside it); repeat for several, as "
                                  "ExecuTorch's Module(program, data_files)")
      ->type_name("FILE.ptd");
}

Result<UnloadBug> parse_injected_bug(const std::string& text) {
  const Result<UnloadBug> bug = parse_unload_bug(text);
  if (!bug.ok() || *bug == UnloadBug::None) {
    return Error(ErrorCode::InvalidArgument,
                 "expects skip-free, double-free or wrong-index-free, got '" + text + "'");
  }
  return *bug;
}

Result<DeviceBacking> parse_device_backing(const std::string& text) {
  if (text == "unbacked") return DeviceBacking::Unbacked;
  if (text == "host") return DeviceBacking::Host;
  return Error(ErrorCode::InvalidArgument,
               "--backing expects unbacked or host, got '" + text + "'");
}

Result<double> parse_percent(const std::string& text) {
  // Digits with at most one '.', nothing else: no sign, exponent, hex, "inf" or "nan"; and
  // finite (300 digits overflow a double).
  const bool form = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos &&
                    std::count(text.begin(), text.end(), '.') <= 1 && text != ".";
  const double pct = form ? std::strtod(text.c_str(), nullptr) : 0;
  if (!form || !std::isfinite(pct)) {
    return Error(
        ErrorCode::InvalidArgument,
        "expects a percentage (a finite number, 0 or above, like 3 or 2.5), got '" + text + "'");
  }
  return pct;
}

CLI::Option* add_percent_option(CLI::App& app, const std::string& name, std::optional<double>& pct,
                                const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&pct](const std::string& text) { pct = *parse_percent(text); }, description)
      ->type_name("PCT")
      ->check(cli::checked_by(&parse_percent));
}

void add_device_options(CLI::App& app, DeviceSetup& device) {
  app.add_option_function<std::string>(
         "--device", [&device](const std::string& text) { device.kind = *parse_device_kind(text); },
         "where device buffers live: simulated (default; tracked host memory) or cuda (the GPU's "
         "memory, under the same ledger, misuse checks, faults and capacities)")
      ->type_name("simulated|cuda")
      ->check(cli::checked_by(&parse_device_kind));
  app.add_option_function<std::vector<std::string>>(
         "--device-map",
         [&device](const std::vector<std::string>& texts) {
           for (const std::string& text : texts) {
             const auto [planned, present] = *parse_device_map_entry(text);
             Error added = device.map.add(planned, present);
             if (!added.ok()) throw CLI::ValidationError("--device-map", added.message());
           }
         },
         "with --device cuda: run what the program places on PLANNED on the GPU PRESENT "
         "(repeatable), e.g. cuda:1=cuda:0 for a two-GPU program on one GPU; reports keep the "
         "planned devices and name the map")
      ->type_name("PLANNED=PRESENT")
      ->check(cli::checked_by(&parse_device_map_entry));
  app.parse_complete_callback([&device] {
    if (!device.map.empty() && device.kind != DeviceKind::Cuda) {
      throw CLI::ValidationError("--device-map",
                                 "needs --device cuda (the simulated devices have every index "
                                 "from cuda:0 to cuda:127)");
    }
  });
}

}  // namespace devplan::harness
