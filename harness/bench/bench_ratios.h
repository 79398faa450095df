// Ratio lines for Google Benchmark binaries: a console reporter that, after the usual table,
// prints one line per pair of benchmarks whose names differ only in one path component
// (device vs cpu, tracking vs malloc), so that a run answers "how much slower" directly.
//
//   int main(int argc, char** argv) {
//     register_my_benchmarks();   // "load_method/cpu/buffers:16/...", "load_method/device/..."
//     return devplan::bench::run_with_ratios(
//         argc, argv, {{"load_method device/cpu", "/device/", "/cpu/", 1.2}});
//   }
//
// prints, for every benchmark whose name contains "/device/" and that has a partner with
// "/cpu/" in its place:
//
//   ratio: load_method device/cpu buffers:16/tensors:1000 = 1.07 (goal <= 1.20: ok)
//
// The value is numerator time / denominator time per iteration: CPU time, or wall-clock time for
// benchmarks registered with UseRealTime(); the median when --benchmark_repetitions gives one. The
// name shown is the numerator's with the distinguishing component and any "/real_time" /
// "/process_time" removed. scripts/bench.sh collects every line that starts with "ratio: ". The
// table goes to stdout as with the default console reporter; --benchmark_out=FILE
// --benchmark_out_format=json still writes the JSON file
// (--benchmark_format is ignored: the display is always this console reporter).
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace devplan::bench {

// One kind of ratio: benchmarks named with `numerator` over those named with `denominator`.
struct RatioSpec {
  RatioSpec(std::string label_in, std::string numerator_in, std::string denominator_in,
            double goal_in = 0, std::string prefix_in = "")
      : label(std::move(label_in)),
        numerator(std::move(numerator_in)),
        denominator(std::move(denominator_in)),
        goal(goal_in),
        prefix(std::move(prefix_in)) {}

  std::string label;        // "load_method device/cpu"
  std::string numerator;    // a name component, e.g. "/device/"
  std::string denominator;  // what replaces it in the partner's name, e.g. "/cpu/"
  double goal;              // the largest acceptable ratio; 0: no goal printed
  std::string prefix;       // only benchmarks whose name starts with this ("" = all)
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  explicit RatioReporter(std::vector<RatioSpec> specs)
      : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular),
        specs_(std::move(specs)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const std::string name = run.run_name.str();
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      if (time_.count(name) == 0) order_.push_back(name);
      if (median) {
        time_[name] = time_of(run);
        has_median_[name] = true;
      } else if (!has_median_[name]) {
        time_[name] = time_of(run);  // the last repetition until a median arrives
      }
    }
    benchmark::ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    benchmark::ConsoleReporter::Finalize();
    for (const std::string& line : ratio_lines()) {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  }

  // The "ratio: ..." lines for the runs reported so far, in run order.
  std::vector<std::string> ratio_lines() const {
    std::vector<std::string> lines;
    for (const RatioSpec& spec : specs_) {
      for (const std::string& name : order_) {
        if (name.compare(0, spec.prefix.size(), spec.prefix) != 0) continue;
        const size_t at = name.find(spec.numerator);
        if (at == std::string::npos) continue;
        std::string partner = name;
        partner.replace(at, spec.numerator.size(), spec.denominator);
        auto other = time_.find(partner);
        if (other == time_.end() || other->second <= 0) continue;
        const double ratio = time_.at(name) / other->second;
        std::string shown = name;
        shown.replace(at, spec.numerator.size(), "/");
        for (size_t d = shown.find("//"); d != std::string::npos; d = shown.find("//")) {
          shown.erase(d, 1);
        }
        for (const std::string time_type : {"/real_time", "/process_time"}) {
          for (size_t t = shown.find(time_type); t != std::string::npos;
               t = shown.find(time_type)) {
            shown.erase(t, time_type.size());
          }
        }
        if (!shown.empty() && shown.back() == '/') shown.pop_back();
        const size_t slash = shown.find('/');  // drop the family name ("load_method/")
        if (slash != std::string::npos) shown.erase(0, slash + 1);
        char text[512];
        if (spec.goal > 0) {
          std::snprintf(text, sizeof(text), "ratio: %s %s = %.2f (goal <= %.2f: %s)",
                        spec.label.c_str(), shown.c_str(), ratio, spec.goal,
                        ratio <= spec.goal ? "ok" : "MISSED");
        } else {
          std::snprintf(text, sizeof(text), "ratio: %s %s = %.2f", spec.label.c_str(),
                        shown.c_str(), ratio);
        }
        lines.emplace_back(text);
      }
    }
    return lines;
  }

 private:
  // Wall-clock time for benchmarks measured that way (UseRealTime, e.g. multi-threaded ones),
  // else CPU time, which a busy machine disturbs less.
  static double time_of(const Run& run) {
    return run.run_name.time_type.empty() ? run.GetAdjustedCPUTime() : run.GetAdjustedRealTime();
  }

  std::vector<RatioSpec> specs_;
  std::vector<std::string> order_;      // benchmark names, first report first
  std::map<std::string, double> time_;  // per name: the median, else the last run
  std::map<std::string, bool> has_median_;
};

// The body of a benchmark main(): parses the benchmark flags, runs the registered benchmarks
// with a RatioReporter for `specs`, and returns 0 (1 for an unknown flag).
inline int run_with_ratios(int argc, char** argv, std::vector<RatioSpec> specs) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter(std::move(specs));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace devplan::bench
