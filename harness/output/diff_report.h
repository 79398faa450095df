// What `devplan diff` prints: the differences as lines of text, or one JSON document.
#pragma once

#include <string>

#include <harness/json/json.h>
#include <harness/services/program_diff.h>

namespace devplan::harness {

std::string diff_text(const ProgramDiff& diff);
Json diff_json(const ProgramDiff& diff);

}  // namespace devplan::harness
