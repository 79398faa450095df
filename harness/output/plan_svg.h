// The memory-plan picture of `devplan plot`: one panel per planned buffer, x = instruction
// index, y = byte offset, one rectangle per planned tensor spanning its lifetime and its bytes,
// coloured by device; overlaps found by the plan check drawn in red on top. Each tensor
// rectangle has a <title> naming the value, its bytes and its lifetime, so hovering shows it.
//
// Structure (relied on by tests and tools): every tensor is <rect class="tensor" ...>, every
// overlap <rect class="overlap" ...>, every buffer label <text class="buffer-label">, every
// method heading <text class="method-label">.
#pragma once

#include <string>
#include <vector>

#include <harness/services/plot.h>

namespace devplan::harness {

// One SVG document with every given method, stacked.
std::string plan_svg(const std::string& title, const std::vector<PlotMethod>& methods);

// An HTML page with one SVG per method.
std::string plan_html(const std::string& title, const std::vector<PlotMethod>& methods);

}  // namespace devplan::harness
