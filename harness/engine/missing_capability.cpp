#include <harness/engine/missing_capability.h>

namespace devplan::harness {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace

std::string MissingCapability::text() const {
  std::string text;
  if (!kernels.empty()) text = "no kernel for " + joined(kernels);
  if (!backends.empty()) text += (text.empty() ? "" : "; ") + ("no backend " + joined(backends));
  if (text.empty() && !unnamed.empty()) return "an operator has no kernel (" + unnamed + ")";
  return text;
}

}  // namespace devplan::harness
