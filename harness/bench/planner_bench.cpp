// Planner benchmark: plans structured and random graphs of 10 to 100,000 tensors with every
// planner algorithm, and graphs of 1,000,000 tensors with `best`, and reports, per benchmark,
// the time to plan one graph (device propagation included), its bytes and how close the plan
// is to the lower bound (largest total of aligned live bytes at one step, per device):
//
//   counters  bytes      the plan's bytes, all buffers together
//             bound      the sum of the buffers' lower bounds
//             ratio      geometric mean over the graph's device buffers of planned / bound
//             max_ratio  the worst buffer's planned / bound
//             tensors    tensors after copy insertion; buffers: buffers planned
//
// Names: planner/<algorithm>/<family>/tensors:<n>/seed:<s>. Seed s puts delegates on s % 3
// CUDA devices (0: a host-only graph). A 1,000,000-tensor graph is planned once (one iteration,
// one repetition) and not kept for later benchmarks. After the table it prints, for each
// algorithm, the geometric mean and the maximum of planned / bound over every (graph, device)
// of the corpus up to 100,000 tensors, with the goals for `best` (geomean <= 1.005,
// max <= 1.06), as "ratio: " lines for scripts/bench.sh, plus the time of best over greedy per
// graph; then a "bytes: " line with the exact bytes and bound of every plan of 100,000 tensors
// or more (1,000,000 included).
//
//   build/bin/planner_bench                                   # everything (about two minutes)
//   build/bin/planner_bench --benchmark_filter='best/.*/tensors:10000/'
//   build/bin/planner_bench --benchmark_filter='best/.*/tensors:1000000/'
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

constexpr double kGeomeanGoal = 1.005;
constexpr double kMaxGoal = 1.06;

// The corpus: sizes, and how many seeds (graphs) per family at each size.
const std::vector<std::pair<size_t, int>> kSizes = {
    {10, 3}, {100, 3}, {1000, 3}, {10000, 2}, {100000, 1}};
// Planned with `best` only, one seed.
constexpr size_t kLargeSize = 1000000;
// Plans of this many tensors or more get a "bytes: " line.
constexpr size_t kBytesLineSize = 100000;

Graph make_graph(GraphFamily family, size_t n, int seed) {
  GraphGenOptions o;
  o.family = family;
  o.num_tensors = n;
  o.seed = static_cast<uint64_t>(seed);
  o.num_devices = seed % 3;
  return generate_graph(o);
}

// Graphs below kLargeSize are kept: every algorithm plans the same one.
const Graph& corpus_graph(GraphFamily family, size_t n, int seed) {
  static std::map<std::tuple<int, size_t, int>, Graph> cache;
  auto key = std::make_tuple(static_cast<int>(family), n, seed);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_graph(family, n, seed)).first;
  return it->second;
}

struct RatioStats {
  double log_sum = 0;
  size_t count = 0;
  double max = 0;
  std::string worst;
};

std::map<PlannerAlgorithm, RatioStats>& stats() {
  static std::map<PlannerAlgorithm, RatioStats> s;
  return s;
}

// "bytes: " lines, in run order.
std::vector<std::string>& bytes_lines() {
  static std::vector<std::string> lines;
  return lines;
}

void BM_Plan(benchmark::State& state, const std::string& name, GraphFamily family, size_t n,
             int seed, PlannerAlgorithm algorithm) {
  std::optional<Graph> large;
  if (n >= kLargeSize) large.emplace(make_graph(family, n, seed));
  const Graph& graph = large ? *large : corpus_graph(family, n, seed);
  PlanOptions options;
  options.algorithm = algorithm;
  std::optional<Result<MethodMemoryPlan>> plan;
  for (auto _ : state) {
    plan.emplace(plan_method(graph, options));
    benchmark::DoNotOptimize(*plan);
  }
  if (!plan || !plan->ok()) {
    state.SkipWithError(plan ? plan->error().to_string().c_str() : "no iteration ran");
    return;
  }
  const MethodMemoryPlan& p = **plan;
  std::vector<PlanViolation> violations = verify_plan(p);
  if (!violations.empty()) {
    state.SkipWithError(("invalid plan: " + violations[0].message).c_str());
    return;
  }
  double log_sum = 0, worst = 1.0;
  size_t count = 0;
  uint64_t bound = 0;
  for (const PlannedBuffer& b : p.buffers) bound += b.lower_bound;
  for (const PlannedBuffer& b : p.buffers) {
    if (b.lower_bound == 0) continue;
    const double r = static_cast<double>(b.size) / static_cast<double>(b.lower_bound);
    log_sum += std::log(r);
    worst = std::max(worst, r);
    ++count;
  }
  state.counters["bytes"] = static_cast<double>(p.total_bytes());
  state.counters["bound"] = static_cast<double>(bound);
  state.counters["ratio"] = count ? std::exp(log_sum / static_cast<double>(count)) : 1.0;
  state.counters["max_ratio"] = worst;
  state.counters["tensors"] = static_cast<double>(p.graph.tensors.size());
  state.counters["buffers"] = static_cast<double>(p.buffers.size());

  // Once per benchmark (Google Benchmark may call this function more than once).
  static std::set<std::string> recorded;
  if (!recorded.insert(name).second) return;
  if (n >= kBytesLineSize) {
    bytes_lines().push_back("bytes: " + name + " = " + std::to_string(p.total_bytes()) +
                            " (lower bound " + std::to_string(bound) + ")");
  }
  // The quality goals are for the corpus; the large graphs have a time goal, and their bytes
  // line.
  if (n >= kLargeSize) return;
  RatioStats& s = stats()[algorithm];
  for (const PlannedBuffer& b : p.buffers) {
    if (b.lower_bound == 0) continue;
    const double r = static_cast<double>(b.size) / static_cast<double>(b.lower_bound);
    s.log_sum += std::log(r);
    ++s.count;
    if (r > s.max) {
      s.max = r;
      s.worst = name + " " + b.device.to_string();
    }
  }
}

void register_benchmarks() {
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    for (const auto& [n, seeds] : kSizes) {
      for (GraphFamily f : all_graph_families()) {
        for (int seed = 1; seed <= seeds; ++seed) {
          const std::string name = std::string("planner/") + planner_algorithm_name(a) + "/" +
                                   graph_family_name(f) + "/tensors:" + std::to_string(n) +
                                   "/seed:" + std::to_string(seed);
          benchmark::RegisterBenchmark(name.c_str(), BM_Plan, name, f, n, seed, a)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  for (GraphFamily f : all_graph_families()) {
    const std::string name = std::string("planner/best/") + graph_family_name(f) +
                             "/tensors:" + std::to_string(kLargeSize) + "/seed:1";
    benchmark::RegisterBenchmark(name.c_str(), BM_Plan, name, f, kLargeSize, 1,
                                 PlannerAlgorithm::Best)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(1);
  }
}

void print_summary() {
  for (const auto& [algorithm, s] : stats()) {
    if (s.count == 0) continue;
    const double geomean = std::exp(s.log_sum / static_cast<double>(s.count));
    const char* name = planner_algorithm_name(algorithm);
    if (algorithm == PlannerAlgorithm::Best) {
      std::printf(
          "ratio: planner %s planned/lower-bound geomean over %zu buffers = %.4f (goal <= %.3f: "
          "%s)\n",
          name, s.count, geomean, kGeomeanGoal, geomean <= kGeomeanGoal ? "ok" : "MISSED");
      std::printf("ratio: planner %s planned/lower-bound max = %.4f at %s (goal <= %.2f: %s)\n",
                  name, s.max, s.worst.c_str(), kMaxGoal, s.max <= kMaxGoal ? "ok" : "MISSED");
    } else {
      std::printf(
          "ratio: planner %s planned/lower-bound geomean over %zu buffers = %.4f, max = %.4f at "
          "%s\n",
          name, s.count, geomean, s.max, s.worst.c_str());
    }
  }
  for (const std::string& line : bytes_lines()) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  devplan::register_benchmarks();
  const int rc = devplan::bench::run_with_ratios(
      argc, argv, {{"planner time best/greedy", "/best/", "/greedy/"}});
  devplan::print_summary();
  return rc;
}
