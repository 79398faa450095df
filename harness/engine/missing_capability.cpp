#include <harness/engine/missing_capability.h>

namespace devplan::harness {

std::string missing_capability(const Error& e) {
  const std::string& m = e.message();
  auto names_between = [&](const std::string& before, const std::string& after) {
    std::string list;
    for (size_t at = m.find(before); at != std::string::npos; at = m.find(before, at + 1)) {
      const size_t start = at + before.size();
      const size_t end = m.find(after, start);
      if (end == std::string::npos) break;
      const std::string name = m.substr(start, end - start);
      if (name.find(' ') != std::string::npos) continue;  // prose, not a name
      if (list.find(name) == std::string::npos) list += (list.empty() ? "" : ", ") + name;
    }
    return list;
  };
  std::string text;
  if (e.code() == ErrorCode::OperatorMissing) {
    const std::string kernels = names_between("operator ", " has no kernel");
    const std::string backends = names_between("needs backend ", ",");
    if (!kernels.empty()) text = "no kernel for " + kernels;
    if (!backends.empty()) text += (text.empty() ? "" : "; ") + ("no backend " + backends);
    return text.empty() ? "an operator has no kernel (" + m + ")" : text;
  }
  const std::string backends = names_between("Backend ", " is not registered");
  if (e.code() == ErrorCode::NotFound && !backends.empty()) return "no backend " + backends;
  return "";
}

}  // namespace devplan::harness
