// Small helpers for writing SVG text by hand: escaping and number formatting.
#pragma once

#include <string>

namespace devplan::harness {

// `text` with &, <, >, " escaped for XML content and attribute values.
std::string xml_escape(const std::string& text);

// A coordinate with at most two decimals ("12.5", "3").
std::string svg_number(double v);

// A fill colour per device: the CPU blue, each CUDA index its own hue.
std::string device_colour(const std::string& device);

}  // namespace devplan::harness
