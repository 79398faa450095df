// devplan fuzz [--seed S] [--cases N] [--seconds T] [--shard I/N] [--devices D,D,...]
//              [--case K] [--inject-bug BUG] [--differential] [--out DIR] [--junit FILE]
//              [--json]
#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/engine/engine.h>
#include <harness/fuzz/crash_replay.h>
#include <harness/fuzz/fuzz_campaign.h>
#include <harness/report/json_writer.h>
#include <harness/report/junit.h>
#include <harness/scenario/scenario_program.h>

#include <cstdio>
#include <unistd.h>

#include <iostream>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan fuzz [--seed S] [--cases N] [--seconds T] [--shard I/N]\n"
    "                    [--devices cpu:0,cuda:0,cuda:1] [--case K] [--inject-bug BUG]\n"
    "                    [--differential] [--runtime devplan|executorch] [--out DIR]\n"
    "                    [--junit FILE] [--json]\n"
    "  --runtime executorch holds ExecuTorch's runtime to every case too (it implies\n"
    "  --differential: the invariants run on runtime_ext, ExecuTorch must match it).\n"
    "  Without --cases or --seconds, runs 1000 cases. Exit 0 clean, 3 failure found.";

const cli::ArgSpec kSpec = {
    {"seed", cli::OptionKind::Single},    {"cases", cli::OptionKind::Single},
    {"seconds", cli::OptionKind::Single}, {"shard", cli::OptionKind::Single},
    {"devices", cli::OptionKind::Single}, {"case", cli::OptionKind::Single},
    {"inject-bug", cli::OptionKind::Single}, {"out", cli::OptionKind::Single},
    {"junit", cli::OptionKind::Single},   {"json", cli::OptionKind::Flag},
    {"differential", cli::OptionKind::Flag}, {"runtime", cli::OptionKind::Single},
};

Result<CampaignOptions> parse_options(const cli::ParsedArgs& args) {
  CampaignOptions o;
  // Buffers up to 64 KiB: large enough for every size class (zero, tiny, unaligned, many
  // pages), small enough that filling simulated device memory does not dominate a case.
  o.scenario.max_buffer_bytes = 64 * 1024;
  if (args.has("seed")) {
    DEVPLAN_ASSIGN_OR_RETURN(o.seed, cli::parse_uint_option("seed", args.value("seed")));
  }
  if (args.has("cases")) {
    DEVPLAN_ASSIGN_OR_RETURN(int64_t n, cli::parse_int_option("cases", args.value("cases"), 1, INT64_MAX));
    o.max_cases = static_cast<uint64_t>(n);
  }
  if (args.has("seconds")) {
    DEVPLAN_ASSIGN_OR_RETURN(o.max_seconds, cli::parse_double_option("seconds", args.value("seconds")));
    if (!(o.max_seconds > 0)) {
      return Error(ErrorCode::InvalidArgument, "--seconds must be positive");
    }
  }
  if (!args.has("cases") && !args.has("seconds")) o.max_cases = 1000;
  if (args.has("shard")) {
    const std::string text = args.value("shard");
    const size_t slash = text.find('/');
    if (slash == std::string::npos) {
      return Error(ErrorCode::InvalidArgument, "--shard expects I/N, got '" + text + "'");
    }
    DEVPLAN_ASSIGN_OR_RETURN(int64_t n, cli::parse_int_option("shard", text.substr(slash + 1), 1, UINT32_MAX));
    DEVPLAN_ASSIGN_OR_RETURN(int64_t i, cli::parse_int_option("shard", text.substr(0, slash), 0, n - 1));
    o.shard_index = static_cast<uint32_t>(i);
    o.shard_count = static_cast<uint32_t>(n);
  }
  if (args.has("devices")) {
    o.scenario.devices.clear();
    const std::string text = args.value("devices");
    size_t start = 0;
    while (true) {
      const size_t comma = text.find(',', start);
      DEVPLAN_ASSIGN_OR_RETURN(Device d, parse_device(text.substr(start, comma - start)));
      o.scenario.devices.push_back(d);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (args.has("case")) {
    DEVPLAN_ASSIGN_OR_RETURN(uint64_t k, cli::parse_uint_option("case", args.value("case")));
    o.only_case = k;
  }
  DEVPLAN_ASSIGN_OR_RETURN(const RuntimeKind runtime, parse_runtime_kind(args.value("runtime", "devplan")));
  o.checks.differential = args.has("differential") || runtime == RuntimeKind::Executorch;
  if (args.has("inject-bug")) {
    const std::string bug = args.value("inject-bug");
    if (!parse_unload_bug(bug, &o.checks.unload_bug) || o.checks.unload_bug == UnloadBug::None) {
      return Error(ErrorCode::InvalidArgument,
                   "--inject-bug expects skip-free, double-free or wrong-index-free, got '" + bug + "'");
    }
  }
  return o;
}

// The command line that replays `failure` exactly.
std::string replay_command(const cli::ParsedArgs& args, const CampaignOptions& o,
                           uint64_t case_index) {
  std::string cmd = "devplan fuzz --seed " + std::to_string(o.seed) + " --case " +
                    std::to_string(case_index);
  if (args.has("devices")) cmd += " --devices " + args.value("devices");
  if (args.has("inject-bug")) cmd += " --inject-bug " + args.value("inject-bug");
  if (o.checks.differential) cmd += " --differential";
  return cmd;
}

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
  Result<cli::ParsedArgs> parsed = cli::parse_args(kSpec, args);
  Result<CampaignOptions> options =
      parsed.ok() ? parse_options(*parsed) : Result<CampaignOptions>(parsed.error());
  if (!options.ok() || !parsed->positionals.empty()) {
    err << "devplan fuzz: "
        << (options.ok() ? "takes no positional arguments" : options.error().message()) << "\n"
        << kUsage << "\n";
    return cli::kExitUsage;
  }
  const bool json = parsed->has("json");
  if (options->checks.differential && !executorch_available()) {
    err << "devplan fuzz: --differential needs the ExecuTorch engine: "
        << executorch_unavailable_reason() << "\n";
    return cli::kExitError;
  }
  // A live line on a terminal; plain lines, every few seconds, otherwise.
  const bool tty = &err == &std::cerr && isatty(STDERR_FILENO) == 1;
  double next_plain = 2.0;
  // A case that takes the process down still says which case it was.
  ScopedCrashReplay crash_replay;
  options->on_case_start = [&](uint64_t k) { crash_replay.set_case(replay_command(*parsed, *options, k)); };
  CampaignResult result = run_campaign(*options, [&](const CampaignProgress& p) {
    if (tty) {
      write_progress(err, true, p, false);
    } else if (p.seconds >= next_plain) {
      write_progress(err, false, p, false);
      next_plain = p.seconds + 2.0;
    }
  });
  if (tty) err << "\n";
  const double rate = result.seconds > 0 ? result.cases / result.seconds : 0.0;
  std::string program_path, replay;
  if (result.failure) {
    const CampaignFailure& f = *result.failure;
    replay = replay_command(*parsed, *options, f.case_index);
    program_path = parsed->value("out", ".") + "/devplan-fuzz-seed" + std::to_string(options->seed) +
                   "-case" + std::to_string(f.case_index) + ".pte";
    const std::vector<uint8_t> bytes = build_program(f.minimal);
    Error e = write_file(program_path, std::string(bytes.begin(), bytes.end()));
    if (!e.ok()) {
      err << "devplan fuzz: " << e.to_string() << "\n";
      program_path.clear();
    }
  }
  if (parsed->has("junit")) {
    JunitCase c{"devplan fuzz", "seed " + std::to_string(options->seed) + " shard " +
                                    std::to_string(options->shard_index) + "/" +
                                    std::to_string(options->shard_count),
                "", result.seconds};
    if (result.failure) {
      c.failure = result.failure->finding.check + ": " + result.failure->finding.message +
                  "\nreplay: " + replay + "\nprogram: " + program_path;
    }
    (void)write_file(parsed->value("junit"), junit_xml("devplan fuzz", {c}, result.seconds));
  }
  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("seed").value(options->seed);
    w.key("shard").value(std::to_string(options->shard_index) + "/" + std::to_string(options->shard_count));
    w.key("cases").value(result.cases);
    w.key("failures").value(static_cast<uint64_t>(result.failure ? 1 : 0));
    w.key("seconds").value(result.seconds);
    w.key("cases_per_second").value(rate);
    w.key("runtime").value(parsed->value("runtime", "devplan"));
    w.key("differential").value(options->checks.differential);
    if (options->checks.differential) {
      w.key("divergences").value(static_cast<uint64_t>(
          result.failure && result.failure->finding.check == "differential" ? 1 : 0));
      w.key("known_divergences").begin_object();
      for (const auto& [id, count] : result.known_divergences) w.key(id).value(count);
      w.end_object();
    }
    if (result.failure) {
      const CampaignFailure& f = *result.failure;
      w.key("failure").begin_object();
      w.key("case").value(f.case_index);
      w.key("check").value(f.finding.check);
      w.key("message").value(f.finding.message);
      w.key("program").value(program_path);
      w.key("replay").value(replay);
      w.key("minimised").value(describe_program_scenario(f.minimal));
      w.end_object();
    }
    w.end_object();
    out << w.str() << "\n";
  } else {
    char line[200];
    std::snprintf(line, sizeof(line), "fuzz: %llu cases in %.2f s (%.0f cases/s), %d failures (seed %llu, shard %u/%u)",
                  static_cast<unsigned long long>(result.cases), result.seconds, rate,
                  result.failure ? 1 : 0, static_cast<unsigned long long>(options->seed),
                  options->shard_index, options->shard_count);
    out << line << "\n";
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
      out << "FAILURE in case " << f.case_index << " (" << f.finding.check << "): " << f.finding.message << "\n"
          << "minimised program (" << f.shrink_steps << " reductions):\n" << describe_program_scenario(f.minimal)
          << "\n";
      if (!program_path.empty()) out << "written to " << program_path << "\n";
      out << "replay: " << replay << "\n";
    }
  }
  return result.failure ? cli::kExitFinding : cli::kExitOk;
}

}  // namespace devplan::harness
