// Checks one program's measured figures against its budget entry (`devplan budget check`).
// Every figure that changed is one finding: grew beyond its tolerance (a failure), grew within
// it, shrank (never a failure), or a note (an engine recorded but not built here).
//
//   BudgetTolerances t{5.0, 0.0};
//   std::vector<BudgetFinding> f = check_against_budget("model.pte", recorded, measured, t);
//   f[0].text == "model.pte forward: buffer 1 (cuda:0) grew 48 B -> 64 B (+16 B, +33.33%;
//                 tolerance 5%)"
//
// Rules: bytes (buffer sizes, planned and peak bytes per device, bytes a load allocates) and the
// plan's ratio to its lower bound grow beyond `bytes_pct`; allocation counts beyond
// `allocations_pct`; leaks and misuse fail on any growth, as do a load that fails where it
// loaded, a buffer that moved to another device and a method the budget does not have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <harness/services/budget_file.h>

namespace devplan::harness {

enum class FindingKind { Grew, Within, Shrank, Note };
const char* finding_kind_name(FindingKind kind);  // "grew", "within", "shrank", "note"

// A figure's value before or after the change: not given (monostate), none (nullptr), a flag, a
// count or byte size, a ratio, a text (a device, an error) or a list (placeholders).
using FindingValue = std::variant<std::monostate, std::nullptr_t, bool, uint64_t, double,
                                  std::string, std::vector<std::string>>;

// What a finding is about, as the JSON report names it (output/budget_output.h): "what"
// ("buffer.size", "load.bytes", ...), then the members that apply, in this order.
struct FindingDetail {
  std::string what;
  std::optional<uint64_t> index;  // a buffer's
  std::string runtime;            // an engine's name; "" when none
  std::string device;             // "" when none
  FindingValue old_value;         // as recorded
  FindingValue new_value;         // as measured now
};

struct BudgetFinding {
  FindingKind kind = FindingKind::Note;
  std::string method;  // empty for the program as a whole
  std::string text;    // "<program> <method>: <what changed>"
  FindingDetail detail;
};

struct BudgetTolerances {
  double bytes_pct = 0;
  double allocations_pct = 0;
};

std::vector<BudgetFinding> check_against_budget(const std::string& program,
                                                const BudgetProgram& recorded,
                                                const BudgetProgram& measured,
                                                const BudgetTolerances& tolerances);

}  // namespace devplan::harness
