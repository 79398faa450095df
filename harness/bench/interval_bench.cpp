// interval_bench: `devplan plan --intervals FILE --capacity C` (plan_interval_rows with its
// default options) deciding interval instances at their capacity: generated tight instances of
// 100 to 2,000 buffers, and, when a folder is given, the instances in it, for example
// MiniMalloc's benchmarks/challenging (files <name>.<capacity>.csv; they stay outside this
// repository), side by side with a MiniMalloc binary when one is given.
//
//   build/bin/interval_bench                                        # the generated instances
//   build/bin/interval_bench --instances=DIR [--minimalloc=BIN]     # and the folder's
//
// Benchmarks (wall-clock time, one decision per iteration):
//   intervals/generated/<engine>/buffers:N/seed:S  decide_exact at the capacity with the
//                                 engine: portfolio (what plan --intervals runs) or restarts
//                                 (ExactSearch alone), within kGeneratedSeconds; counter decided
//   intervals/<name>/devplan      the file read, parsed and decided at its capacity
//   intervals/<name>/shuffled     the same rows shuffled, ids renumbered, times scaled by 7
//   intervals/<name>/minimalloc   BIN --capacity=C --input=FILE --output=TMP (with --minimalloc)
//   intervals/<name>/minimize     plan --intervals FILE without a capacity, its time limit
//                                 MiniMalloc's time on the file (without --minimalloc: twice
//                                 devplan's): counter `reached` is 1 when its height is <= C
// Every plan is checked here, independently of the planner (offsets aligned, within the
// capacity, no two buffers live at once sharing a byte); a plan that fails the check, or a
// decision that does not fit, is an error. Without --instances the folder's benchmarks are not
// registered, and a line says why.
//
// Ratios: devplan/minimalloc per file (goal <= 2), shuffled/devplan (goal <= 1.5),
// portfolio/restarts per generated instance; then "total: " lines (the folder's totals).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <harness/graph/interval_csv.h>
#include <harness/services/plan_intervals.h>
#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/split_mix64.h>
#include <runtime_ext/planning/tight_instances.h>

extern char** environ;

namespace devplan {
namespace {

using harness::IntervalPlan;
using harness::IntervalPlanOptions;
using harness::IntervalRow;

constexpr double kGeneratedSeconds = 10;
const std::vector<size_t> kGeneratedSizes = {100, 200, 500, 1000, 2000};
constexpr int kGeneratedSeeds = 2;
constexpr int64_t kTimeScale = 7;

struct Flags {
  std::string instances;   // --instances=DIR
  std::string minimalloc;  // --minimalloc=BIN
};

// Empty when `offsets` plan `rows` within `capacity`, else what is wrong.
std::string plan_problem(const std::vector<IntervalRow>& rows, const std::vector<uint64_t>& offsets,
                         uint64_t capacity) {
  if (offsets.size() != rows.size()) return "one offset per row expected";
  std::vector<size_t> by_lower(rows.size());
  std::iota(by_lower.begin(), by_lower.end(), 0);
  std::sort(by_lower.begin(), by_lower.end(),
            [&](size_t a, size_t b) { return rows[a].lower < rows[b].lower; });
  for (size_t k = 0; k < by_lower.size(); ++k) {
    const size_t i = by_lower[k];
    const IntervalRow& a = rows[i];
    if (offsets[i] % a.alignment != 0) return "row " + a.id + " misaligned";
    if (a.size > 0 && offsets[i] + a.size > capacity) return "row " + a.id + " above capacity";
    for (size_t l = k + 1; l < by_lower.size() && rows[by_lower[l]].lower < a.upper; ++l) {
      const size_t j = by_lower[l];
      const IntervalRow& b = rows[j];
      if (a.size > 0 && b.size > 0 && offsets[i] < offsets[j] + b.size &&
          offsets[j] < offsets[i] + a.size) {
        return "rows " + a.id + " and " + b.id + " share bytes while both are live";
      }
    }
  }
  return "";
}

// Decides `rows` at `capacity` with plan --intervals' defaults (or `time_limit`), checks the
// plan; an error on the state when it does not fit or fails the check.
bool decide(benchmark::State& state, const std::vector<IntervalRow>& rows, uint64_t capacity,
            std::optional<double> time_limit = std::nullopt) {
  IntervalPlanOptions options;
  options.capacity = capacity;
  options.time_limit = time_limit;
  Result<IntervalPlan> plan = harness::plan_interval_rows(rows, options);
  if (!plan.ok()) {
    state.SkipWithError(plan.error().message().c_str());
    return false;
  }
  if (plan->height > capacity) {
    state.SkipWithError(("does not fit (height " + std::to_string(plan->height) + ", " +
                         (plan->timed_out ? "timed out" : "budget") + ")")
                            .c_str());
    return false;
  }
  const std::string problem = plan_problem(rows, plan->offsets, capacity);
  if (!problem.empty()) {
    state.SkipWithError(("invalid plan: " + problem).c_str());
    return false;
  }
  state.counters["steps"] = static_cast<double>(plan->steps);
  return true;
}

std::vector<IntervalRow> generated_rows(size_t buffers, int seed, uint64_t* capacity) {
  TightInstanceOptions o;
  o.buffers = buffers;
  o.seed = static_cast<uint64_t>(seed);
  *capacity = o.capacity;
  std::vector<IntervalRow> rows;
  for (const ExactItem& it : generate_tight_instance(o)) {
    rows.push_back(IntervalRow{"b" + std::to_string(rows.size()), it.lower, it.upper, it.size, 1});
  }
  return rows;
}

// One engine deciding a generated instance at its capacity, within kGeneratedSeconds: counter
// `decided` 1 with a checked plan. The portfolio must decide (an error otherwise); ExactSearch's
// restarts alone are the baseline, and may not.
void BM_Generated(benchmark::State& state, size_t buffers, int seed, ExactBranching engine) {
  uint64_t capacity = 0;
  const std::vector<IntervalRow> rows = generated_rows(buffers, seed, &capacity);
  std::vector<ExactItem> items;
  for (const IntervalRow& r : rows) items.push_back(ExactItem{r.size, r.lower, r.upper, 1});
  for (auto _ : state) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(kGeneratedSeconds));
    const ExactDecision d = decide_exact(items, capacity, kUnlimitedSteps, engine, deadline);
    const bool fits = d.outcome == ExactOutcome::Fits;
    if (fits) {
      const std::string problem = plan_problem(rows, d.offsets, capacity);
      if (!problem.empty()) {
        state.SkipWithError(("invalid plan: " + problem).c_str());
        return;
      }
    } else if (engine == ExactBranching::Portfolio) {
      state.SkipWithError(d.timed_out ? "undecided within the time limit" : "does not fit");
      return;
    }
    state.counters["decided"] = fits ? 1 : 0;
    state.counters["steps"] = static_cast<double>(d.steps);
  }
}

// One file of the folder: its rows and capacity (from the name <name>.<capacity>.csv).
struct Instance {
  std::string name, path;
  uint64_t capacity = 0;
  std::vector<IntervalRow> rows;
};

std::vector<Instance>& instances() {
  static std::vector<Instance> all;
  return all;
}
std::map<std::string, double>& seconds() {  // "<name>/<benchmark>": the last run's wall time
  static std::map<std::string, double> all;
  return all;
}

std::optional<std::vector<IntervalRow>> read_rows(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  Result<harness::IntervalTable> table = harness::parse_interval_csv(text.str(), path);
  if (!table.ok()) {
    *error = table.error().message();
    return std::nullopt;
  }
  return table->rows;
}

void BM_File(benchmark::State& state, const Instance& instance) {
  double last = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    std::optional<std::vector<IntervalRow>> rows = read_rows(instance.path, &error);
    if (!rows) {
      state.SkipWithError(error.c_str());
      return;
    }
    if (!decide(state, *rows, instance.capacity)) return;
    last = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  seconds()[instance.name + "/devplan"] = last;
}

// Rows shuffled, ids renumbered in the new order, times scaled.
std::vector<IntervalRow> shuffled(std::vector<IntervalRow> rows, uint64_t seed) {
  SplitMix64 rng(seed);
  for (size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(i)]);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].id = "r" + std::to_string(i);
    rows[i].lower *= kTimeScale;
    rows[i].upper *= kTimeScale;
  }
  return rows;
}

void BM_Shuffled(benchmark::State& state, const Instance& instance) {
  const std::vector<IntervalRow> rows = shuffled(instance.rows, 0x5eed);
  for (auto _ : state) {
    if (!decide(state, rows, instance.capacity)) return;
  }
}

void BM_Minimalloc(benchmark::State& state, const Instance& instance, const std::string& binary) {
  const std::string output = std::filesystem::temp_directory_path() /
                             ("interval_bench_" + std::to_string(getpid()) + ".csv");
  std::vector<std::string> args = {binary, "--capacity=" + std::to_string(instance.capacity),
                                   "--input=" + instance.path, "--output=" + output};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Its own report would land in the table: to /dev/null.
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  double last = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, binary.c_str(), &quiet, nullptr, argv.data(), environ) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError(("minimalloc failed: " + binary).c_str());
      break;
    }
    last = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  posix_spawn_file_actions_destroy(&quiet);
  std::filesystem::remove(output);
  seconds()[instance.name + "/minimalloc"] = last;
}

void BM_Minimize(benchmark::State& state, const Instance& instance) {
  const auto mm = seconds().find(instance.name + "/minimalloc");
  const double limit = mm != seconds().end()
                           ? mm->second
                           : 2 * std::max(seconds()[instance.name + "/devplan"], 0.01);
  uint64_t height = 0;
  for (auto _ : state) {
    IntervalPlanOptions options;
    options.time_limit = limit;
    Result<IntervalPlan> plan = harness::plan_interval_rows(instance.rows, options);
    if (!plan.ok()) {
      state.SkipWithError(plan.error().message().c_str());
      return;
    }
    const std::string problem = plan_problem(instance.rows, plan->offsets, plan->height);
    if (!problem.empty()) {
      state.SkipWithError(("invalid plan: " + problem).c_str());
      return;
    }
    height = plan->height;
  }
  state.counters["time_limit_s"] = limit;
  state.counters["height"] = static_cast<double>(height);
  state.counters["reached"] = height <= instance.capacity ? 1 : 0;
  seconds()[instance.name + "/reached"] = height <= instance.capacity ? 1 : 0;
}

void register_benchmarks(const Flags& flags) {
  for (size_t n : kGeneratedSizes) {
    for (int seed = 1; seed <= kGeneratedSeeds; ++seed) {
      const std::string tail = "/buffers:" + std::to_string(n) + "/seed:" + std::to_string(seed);
      for (ExactBranching engine : {ExactBranching::Portfolio, ExactBranching::Restarts}) {
        const std::string name = std::string("intervals/generated/") +
                                 (engine == ExactBranching::Portfolio ? "portfolio" : "restarts") +
                                 tail;
        benchmark::RegisterBenchmark(name.c_str(), BM_Generated, n, seed, engine)
            ->Iterations(1)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  if (flags.instances.empty()) {
    std::printf(
        "interval_bench: no --instances=DIR given: only the generated instances run (for "
        "example --instances=<minimalloc>/benchmarks/challenging --minimalloc=<its binary>)\n");
    return;
  }
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(flags.instances)) {
    if (entry.path().extension() == ".csv") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    // <name>.<capacity>.csv
    const std::string stem = std::filesystem::path(path).stem().string();
    const size_t dot = stem.rfind('.');
    Instance instance;
    instance.path = path;
    instance.name = dot == std::string::npos ? stem : stem.substr(0, dot);
    const std::string capacity = dot == std::string::npos ? "" : stem.substr(dot + 1);
    std::string error;
    std::optional<std::vector<IntervalRow>> rows = read_rows(path, &error);
    if (capacity.empty() || capacity.find_first_not_of("0123456789") != std::string::npos ||
        !rows) {
      std::printf("interval_bench: %s skipped: %s\n", path.c_str(),
                  rows ? "its name does not end in .<capacity>.csv" : error.c_str());
      continue;
    }
    instance.capacity = std::stoull(capacity);
    instance.rows = std::move(*rows);
    instances().push_back(std::move(instance));
  }
  for (const Instance& instance : instances()) {
    const std::string prefix = "intervals/" + instance.name;
    auto add = [&](const std::string& what, auto&&... fn_and_args) {
      benchmark::RegisterBenchmark((prefix + "/" + what).c_str(), fn_and_args...)
          ->Iterations(1)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    };
    add("devplan", BM_File, instance);
    add("shuffled", BM_Shuffled, instance);
    if (!flags.minimalloc.empty()) add("minimalloc", BM_Minimalloc, instance, flags.minimalloc);
    add("minimize", BM_Minimize, instance);
  }
}

void print_totals(const Flags& flags) {
  if (instances().empty()) return;
  double devplan = 0, mm = 0, worst = 0;
  int reached = 0;
  std::string worst_name;
  for (const Instance& instance : instances()) {
    const double d = seconds()[instance.name + "/devplan"];
    devplan += d;
    reached += seconds()[instance.name + "/reached"] > 0 ? 1 : 0;
    if (!flags.minimalloc.empty()) {
      const double m = seconds()[instance.name + "/minimalloc"];
      mm += m;
      if (m > 0 && d / m > worst) worst = d / m, worst_name = instance.name;
    }
  }
  std::printf("total: devplan decided %zu instances in %.2f s", instances().size(), devplan);
  if (!flags.minimalloc.empty()) {
    std::printf(
        "; minimalloc %.2f s; devplan/minimalloc = %.3f (goal < 1: %s); worst %s %.2f "
        "(goal <= 2: %s)",
        mm, mm > 0 ? devplan / mm : 0, devplan < mm ? "ok" : "MISSED", worst_name.c_str(), worst,
        worst <= 2 ? "ok" : "MISSED");
  }
  std::printf("\ntotal: minimize reached the capacity on %d of %zu within %s\n", reached,
              instances().size(),
              flags.minimalloc.empty() ? "twice devplan's decision time" : "minimalloc's time");
  std::fflush(stdout);
}

// Takes --instances=DIR and --minimalloc=BIN out of argv (Google Benchmark refuses flags it does
// not know).
Flags take_flags(int* argc, char** argv) {
  Flags flags;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--instances=", 0) == 0) {
      flags.instances = arg.substr(std::strlen("--instances="));
    } else if (arg.rfind("--minimalloc=", 0) == 0) {
      flags.minimalloc = arg.substr(std::strlen("--minimalloc="));
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return flags;
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  const devplan::Flags flags = devplan::take_flags(&argc, argv);
  if (!flags.instances.empty() && !std::filesystem::is_directory(flags.instances)) {
    std::fprintf(stderr, "interval_bench: --instances=%s is not a folder\n",
                 flags.instances.c_str());
    return 2;
  }
  devplan::register_benchmarks(flags);
  const int rc = devplan::bench::run_with_ratios(
      argc, argv,
      {{"intervals devplan/minimalloc", "/devplan/", "/minimalloc/", 2.0},
       {"intervals shuffled/devplan", "/shuffled/", "/devplan/", 1.5},
       {"intervals portfolio/restarts", "/portfolio/", "/restarts/"}});
  devplan::print_totals(flags);
  return rc;
}
