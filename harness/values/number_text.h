// Numbers as the shortest decimal text that reads back to the same value.
#pragma once

#include <string>

namespace devplan::harness {

// A double as the shortest decimal text that reads back to it ("5", "0.1", "1e+20").
std::string format_number(double value);
// The same for a float: the shortest text that reads back to the same float ("0.1").
std::string format_float(float value);

}  // namespace devplan::harness
