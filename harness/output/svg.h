// Small helpers for writing SVG text by hand: number formatting and device colours. Text from
// input is escaped with xml_escape / xml_escape_text (harness/output/xml_text.h, included here
// for the writers that include only this header).
#pragma once

#include <string>

#include <harness/output/xml_text.h>

namespace devplan::harness {

// A coordinate with at most two decimals ("12.5", "3").
std::string svg_number(double v);

// A fill colour per device: the CPU blue, each CUDA index its own hue.
std::string device_colour(const std::string& device);

}  // namespace devplan::harness
