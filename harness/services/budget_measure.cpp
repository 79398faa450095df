#include <harness/services/budget_measure.h>

#include <filesystem>

namespace devplan::harness {

std::optional<std::string> repeated_budget_key(const std::vector<std::string>& files) {
  std::map<std::string, std::string> seen;
  for (const std::string& f : files) {
    auto [it, inserted] = seen.emplace(budget_key(f), f);
    if (inserted) continue;
    if (it->second == f) return "'" + f + "' is given twice";
    return "'" + it->second + "' and '" + f + "' have the same file name '" + it->first +
           "' (a budget keys programs by file name)";
  }
  return std::nullopt;
}

Result<Budget> budget_to_record_over(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Budget();
  Result<Budget> existing = read_budget(path);
  if (!existing.ok()) {
    return Error(ErrorCode::InvalidArgument, "not overwriting '" + path +
                                                 "', which is not a devplan budget (" +
                                                 existing.error().message() + ")");
  }
  return existing;
}

Result<std::map<std::string, BudgetProgram>> measure_programs(const std::vector<std::string>& files,
                                                              const std::vector<std::string>& data,
                                                              const DeviceSetup& device) {
  std::map<std::string, BudgetProgram> programs;
  for (const std::string& file : files) {
    Result<BudgetProgram> p = measure_program(file, data, device);
    if (!p.ok()) return p.error().with_context(file);
    programs[budget_key(file)] = std::move(*p);
  }
  return programs;
}

BudgetRecording record_programs(Budget& budget, std::map<std::string, BudgetProgram> measured,
                                std::optional<double> tolerance, RecordMode mode) {
  BudgetRecording recording;
  for (const auto& [name, p] : budget.programs) {
    if (measured.count(name) > 0) continue;
    (mode == RecordMode::Update ? recording.kept : recording.dropped).push_back(name);
  }
  for (auto& [name, p] : measured) {
    recording.recorded.push_back(name);
    auto it = budget.programs.find(name);
    if (it != budget.programs.end()) p.tolerance_pct = it->second.tolerance_pct;
  }
  if (mode == RecordMode::Update) {
    for (auto& [name, p] : measured) budget.programs[name] = std::move(p);
  } else {
    budget.programs = std::move(measured);
  }
  if (tolerance) budget.tolerance_pct = tolerance;
  return recording;
}

}  // namespace devplan::harness
