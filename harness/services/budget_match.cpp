#include <harness/services/budget_match.h>

namespace devplan::harness {

size_t ProgramCheck::failures() const {
  size_t n = 0;
  for (const BudgetFinding& f : findings) n += f.kind == FindingKind::Grew;
  return n;
}

std::string accept_command(const std::vector<std::string>& files, const std::string& budget_file,
                           const std::vector<std::string>& data, const DeviceSetup& device,
                           BudgetScope scope) {
  std::string command = "devplan budget record";
  for (const std::string& f : files) command += " " + f;
  for (const std::string& d : data) command += " --data " + d;
  command += device.arguments();
  if (scope == BudgetScope::GivenOnly) command += " --update";
  return command + " -o " + budget_file;
}

Error unmatched_programs(const Budget& budget, const std::string& budget_file,
                         const std::vector<std::string>& files,
                         const std::vector<std::string>& data, const DeviceSetup& device,
                         BudgetScope scope) {
  std::vector<std::string> problems;
  std::map<std::string, bool> given;
  for (const std::string& f : files) {
    given[budget_key(f)] = true;
    if (budget.programs.count(budget_key(f)) == 0) {
      const std::string name = budget_key(f) == f ? f : budget_key(f) + " (" + f + ")";
      problems.push_back(name + " is not in " + budget_file + "; add it with: " +
                         accept_command(files, budget_file, data, device, scope));
    }
  }
  for (const auto& [name, p] : budget.programs) {
    if (scope == BudgetScope::Whole && given.count(name) == 0) {
      problems.push_back(budget_file + " has " + name +
                         ", but no file of that name was given; pass it, or record the budget "
                         "again without it");
    }
  }
  if (problems.empty()) return Error::success();
  std::string message = problems[0];
  for (size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i];
  return Error(ErrorCode::NotFound, message);
}

std::vector<ProgramCheck> check_programs(const Budget& budget,
                                         const std::map<std::string, BudgetProgram>& measured,
                                         const std::vector<std::string>& files,
                                         const BudgetCheckTolerances& tolerances) {
  std::vector<ProgramCheck> checks;
  for (const std::string& file : files) {
    const std::string name = budget_key(file);
    const BudgetProgram& recorded = budget.programs.at(name);
    const BudgetProgram& now = measured.at(name);
    BudgetTolerances t;
    t.bytes_pct = recorded.tolerance_pct.value_or(
        tolerances.bytes_pct.value_or(budget.tolerance_pct.value_or(0.0)));
    t.allocations_pct = tolerances.allocations_pct.value_or(0.0);
    ProgramCheck c;
    c.name = name;
    c.file = file;
    for (const auto& [method, m] : now.methods) c.methods.push_back(method);
    for (const auto& [method, m] : recorded.methods) {
      if (now.methods.count(method) == 0) c.methods.push_back(method);
    }
    c.findings = check_against_budget(name, recorded, now, t);
    checks.push_back(std::move(c));
  }
  return checks;
}

size_t budget_failures(const std::vector<ProgramCheck>& checks) {
  size_t failures = 0;
  for (const ProgramCheck& c : checks) failures += c.failures();
  return failures;
}

}  // namespace devplan::harness
