#include <harness/output/svg.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace devplan::harness {

std::string svg_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string device_colour(const std::string& device) {
  if (device == "cpu:0") return "#4e79a7";
  static const char* kCuda[] = {"#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7"};
  const size_t colon = device.find(':');
  int index = colon == std::string::npos ? 0 : std::atoi(device.c_str() + colon + 1);
  return kCuda[static_cast<size_t>(index) % (sizeof(kCuda) / sizeof(kCuda[0]))];
}

}  // namespace devplan::harness
