// devplan fuzz [--seed S] [--cases N] [--seconds T] [--shard I/N] [--devices D,D,...]
//              [--case K] [--inject-bug BUG] [--differential] [--out DIR] [--junit FILE]
//              [--json]
// Sharding also comes from the environment test runners set: TEST_TOTAL_SHARDS and
// TEST_SHARD_INDEX (Bazel), or GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX (see fuzz_sharding.h).
#include <harness/campaign/crash_replay.h>
#include <harness/campaign/fuzz_campaign.h>
#include <harness/campaign/fuzz_sharding.h>
#include <harness/campaign/progress_pacer.h>
#include <harness/commands/fuzz_command.h>
#include <harness/engine/engine.h>
#include <harness/json/json.h>
#include <harness/options/command_options.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/output/json_document.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/output/summary_line.h>
#include <harness/scenario/writer.h>

#include <unistd.h>
#include <cstdio>

#include <iostream>

namespace devplan::harness {
namespace {

void write_progress(std::ostream& err, bool tty, const CampaignProgress& p, bool final_line) {
  char line[160];
  std::snprintf(line, sizeof(line), "fuzz: %llu cases, %.0f cases/s, %llu failures, %.1f s",
                static_cast<unsigned long long>(p.cases), p.seconds > 0 ? p.cases / p.seconds : 0.0,
                static_cast<unsigned long long>(p.failures), p.seconds);
  if (tty) {
    err << "\r" << line << "   " << (final_line ? "\n" : "") << std::flush;
  } else {
    err << line << "\n";
  }
}

}  // namespace

int fuzz_command(const Args& args, std::ostream& out, std::ostream& err) {
  FuzzCommandLine c;
  std::unique_ptr<CLI::App> app = fuzz_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  Result<CampaignOptions> options = campaign_options(c);
  if (!options.ok()) return cli::usage_error(*app, options.error().message(), err);
  const bool json = c.json;
  if (options->checks.differential && !executorch_available()) {
    err << "devplan fuzz: --differential needs the ExecuTorch engine: "
        << executorch_unavailable_reason() << "\n";
    return cli::kExitError;
  }
  std::unique_ptr<RealDeviceMemory> device_memory;
  if (c.device.kind == DeviceKind::Cuda) {
    Result<std::unique_ptr<RealDeviceMemory>> opened =
        RealDeviceMemory::open(c.device, /*wrap_absent=*/true);
    if (!opened.ok()) {
      err << "devplan fuzz: " << opened.error().message() << "\n";
      return cli::kExitError;
    }
    device_memory = std::move(opened).value();
    options->checks.device_memory = device_memory->allocator();
  }
  const std::string devices_line =
      device_memory == nullptr ? "simulated" : device_memory->describe();
  // A live line on a terminal; plain lines, every few seconds, otherwise.
  const bool tty = &err == &std::cerr && isatty(STDERR_FILENO) == 1;
  ProgressPacer plain_lines(2.0);
  // A case that takes the process down still says which case it was.
  ScopedCrashReplay crash_replay;
  options->on_case_start = [&](uint64_t k) {
    crash_replay.set_case(replay_command(*options, k, replay_options(c)));
  };
  CampaignResult result = run_campaign(*options, [&](const CampaignProgress& p) {
    if (tty) {
      write_progress(err, true, p, false);
    } else if (plain_lines.due(p.seconds)) {
      write_progress(err, false, p, false);
    }
  });
  if (tty) err << "\n";
  const double rate = result.seconds > 0 ? result.cases / result.seconds : 0.0;
  std::string program_path, replay;
  if (result.failure) {
    const CampaignFailure& f = *result.failure;
    replay = replay_command(*options, f.case_index, replay_options(c));
    program_path = c.out_dir + "/devplan-fuzz-seed" + std::to_string(options->seed) + "-case" +
                   std::to_string(f.case_index) + ".pte";
    const std::vector<uint8_t> bytes = build_program(f.minimal);
    if (!write_output("fuzz", program_path, std::string(bytes.begin(), bytes.end()), err)) {
      program_path.clear();
    }
  }
  if (json) {
    Json doc = json_document();
    doc["seed"] = options->seed;
    doc["shard"] =
        std::to_string(options->shard_index) + "/" + std::to_string(options->shard_count);
    doc["cases"] = result.cases;
    doc["failures"] = result.failure ? 1 : 0;
    doc["seconds"] = result.seconds;
    doc["cases_per_second"] = rate;
    doc["runtime"] = runtime_name(c.runtime);
    doc["devices"] = devices_line;
    doc["differential"] = options->checks.differential;
    if (options->checks.differential) {
      doc["divergences"] =
          result.failure && result.failure->finding.check == "differential" ? 1 : 0;
      Json known = Json::object();
      for (const auto& [id, count] : result.known_divergences) known[id] = count;
      doc["known_divergences"] = std::move(known);
    }
    doc["statistics"] = {{"allocations", result.totals.allocations},
                         {"frees", result.totals.frees},
                         {"allocated_bytes", result.totals.allocated_bytes}};
    if (result.failure) {
      const CampaignFailure& f = *result.failure;
      doc["failure"] = {{"case", f.case_index},
                        {"check", f.finding.check},
                        {"message", f.finding.message},
                        {"program", program_path},
                        {"replay", replay},
                        {"minimised", describe_program_scenario(f.minimal)}};
    }
    out << write_json(doc) << "\n";
  } else {
    char line[200];
    std::snprintf(line, sizeof(line),
                  "fuzz: %llu cases in %.2f s (%.0f cases/s), %d failures (seed %llu, shard %u/%u)",
                  static_cast<unsigned long long>(result.cases), result.seconds, rate,
                  result.failure ? 1 : 0, static_cast<unsigned long long>(options->seed),
                  options->shard_index, options->shard_count);
    out << line << "\n";
    if (device_memory != nullptr) out << "devices: " << devices_line << "\n";
    if (options->checks.differential) {
      out << "differential: devplan and executorch compared on every case; known divergences:";
      if (result.known_divergences.empty()) out << " none";
      for (const auto& [id, count] : result.known_divergences) {
        out << " " << id << " (" << count << " cases)";
      }
      out << " (docs/executorch-divergences.md)\n";
    }
    if (result.failure) {
      const CampaignFailure& f = *result.failure;
      out << "FAILURE in case " << f.case_index << " (" << f.finding.check
          << "): " << f.finding.message << "\n"
          << "minimised program (" << f.shrink_steps << " reductions):\n"
          << describe_program_scenario(f.minimal) << "\n";
      if (!program_path.empty()) out << "written to " << program_path << "\n";
      out << "replay: " << replay << "\n";
    }
    out << fuzz_summary_line(result, options->seed, replay) << "\n";
  }
  // The JUnit file comes after the report, so a file that cannot be written loses nothing else.
  bool written = true;
  if (!c.junit.empty()) {
    JunitCase junit_case{"devplan fuzz",
                         "seed " + std::to_string(options->seed) + " shard " +
                             std::to_string(options->shard_index) + "/" +
                             std::to_string(options->shard_count),
                         "", result.seconds};
    if (result.failure) {
      junit_case.failure = result.failure->finding.check + ": " + result.failure->finding.message +
                           "\nreplay: " + replay + "\nprogram: " + program_path;
    }
    written =
        write_output("fuzz", c.junit, junit_xml("devplan fuzz", {junit_case}, result.seconds), err);
  }
  const int code = result.failure ? cli::kExitFinding : cli::kExitOk;
  return written ? code : exit_after_write_failure(code);
}

}  // namespace devplan::harness
