// What one check of a fuzz case found wrong.
#pragma once

#include <string>

namespace devplan::harness {

struct FuzzFinding {
  std::string check;    // "round-trip", "placement", "execute", "cleanup", "fault", "corruption",
                        // "differential", "probe"
  std::string message;  // what went wrong, naming method, buffer, allocation and owner
};

}  // namespace devplan::harness
