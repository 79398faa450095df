#include <harness/output/timeline_svg.h>

#include <algorithm>
#include <map>
#include <sstream>

#include <harness/output/svg.h>
#include <harness/output/xml_text.h>

// Every name (the title, devices, leak lines with their owners) goes through
// xml_escape_text/xml_escape (harness/output/xml_text.h): the SVG is always well-formed XML 1.0
// in UTF-8.

namespace devplan::harness {
namespace {

constexpr double kLeft = 80, kTop = 40, kWidth = 640, kHeight = 240;

}  // namespace

std::string timeline_svg(const std::string& title, const std::vector<AllocationEvent>& events,
                         const std::vector<AllocationRecord>& leaks) {
  // Live bytes per device after each event.
  std::map<Device, std::vector<std::pair<size_t, uint64_t>>> series;
  std::map<Device, uint64_t> live;
  uint64_t peak = 1;
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    uint64_t& bytes = live[e.device];
    if (e.kind == AllocationEvent::Kind::Allocate) bytes += e.size;
    if (e.kind == AllocationEvent::Kind::Free) bytes -= std::min<uint64_t>(bytes, e.size);
    auto& points = series[e.device];
    if (points.empty()) points.emplace_back(i, 0);
    points.emplace_back(i + 1, bytes);
    peak = std::max(peak, bytes);
  }
  // Each line runs to the last event, and the top leaves a little room above the peak.
  for (auto& [device, points] : series) {
    if (points.back().first != events.size())
      points.emplace_back(events.size(), points.back().second);
  }
  peak += peak / 10 + 1;
  const double n = std::max<size_t>(1, events.size());
  auto x_of = [&](size_t i) { return kLeft + kWidth * static_cast<double>(i) / n; };
  auto y_of = [&](uint64_t b) {
    return kTop + kHeight - kHeight * static_cast<double>(b) / static_cast<double>(peak);
  };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << svg_number(kLeft + kWidth + 140)
      << "\" height=\"" << svg_number(kTop + kHeight + 50) << "\" font-family=\"sans-serif\">\n";
  svg << "<title>" << xml_escape_text(title) << "</title>\n";
  svg << "<text x=\"4\" y=\"18\" font-size=\"13\">" << xml_escape_text(title)
      << " — live device bytes over the allocation sequence; red: leaked</text>\n";
  svg << "<rect x=\"" << svg_number(kLeft) << "\" y=\"" << svg_number(kTop) << "\" width=\""
      << svg_number(kWidth) << "\" height=\"" << svg_number(kHeight)
      << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  svg << "<text x=\"" << svg_number(kLeft - 4) << "\" y=\"" << svg_number(kTop + 10)
      << "\" font-size=\"10\" text-anchor=\"end\">" << peak << " B</text>\n";
  svg << "<text x=\"" << svg_number(kLeft - 4) << "\" y=\"" << svg_number(kTop + kHeight)
      << "\" font-size=\"10\" text-anchor=\"end\">0 B</text>\n";
  svg << "<text x=\"" << svg_number(kLeft) << "\" y=\"" << svg_number(kTop + kHeight + 14)
      << "\" font-size=\"10\">event 0</text>\n";
  svg << "<text x=\"" << svg_number(kLeft + kWidth) << "\" y=\"" << svg_number(kTop + kHeight + 14)
      << "\" font-size=\"10\" text-anchor=\"end\">event " << events.size() << "</text>\n";
  double legend_y = kTop + 10;
  for (const auto& [device, points] : series) {
    const std::string name = device.to_string();
    svg << "<polyline class=\"device-line\" data-device=\"" << xml_escape(name)
        << "\" fill=\"none\" stroke=\"" << device_colour(name) << "\" stroke-width=\"2\" points=\"";
    for (size_t k = 0; k < points.size(); ++k) {
      // A step line: hold the previous level until the event, then jump.
      if (k > 0)
        svg << svg_number(x_of(points[k].first)) << "," << svg_number(y_of(points[k - 1].second))
            << " ";
      svg << svg_number(x_of(points[k].first)) << "," << svg_number(y_of(points[k].second)) << " ";
    }
    svg << "\"><title>" << xml_escape_text(name) << "</title></polyline>\n";
    svg << "<text x=\"" << svg_number(kLeft + kWidth + 10) << "\" y=\"" << svg_number(legend_y)
        << "\" font-size=\"11\" fill=\"" << device_colour(name) << "\">" << xml_escape_text(name)
        << "</text>\n";
    legend_y += 14;
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    if (e.kind == AllocationEvent::Kind::FailedAllocate) {
      const double x = x_of(i + 1), y = y_of(0) - 6;
      svg << "<path class=\"failed\" d=\"M" << svg_number(x - 4) << "," << svg_number(y - 4) << " L"
          << svg_number(x + 4) << "," << svg_number(y + 4) << " M" << svg_number(x - 4) << ","
          << svg_number(y + 4) << " L" << svg_number(x + 4) << "," << svg_number(y - 4)
          << "\" stroke=\"black\" stroke-width=\"1.5\"><title>failed allocation of " << e.size
          << " B on " << xml_escape_text(e.device.to_string()) << "</title></path>\n";
      continue;
    }
  }
  // A leak is marked at the last allocation that returned its pointer.
  std::map<const void*, size_t> last_allocation;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind == AllocationEvent::Kind::Allocate) last_allocation[events[i].ptr] = i;
  }
  for (const AllocationRecord& leak : leaks) {
    auto found = last_allocation.find(leak.ptr);
    if (found == last_allocation.end()) continue;
    {
      const size_t i = found->second;
      svg << "<circle class=\"leak\" cx=\"" << svg_number(x_of(i + 1)) << "\" cy=\""
          << svg_number(y_of(0) - 6)
          << "\" r=\"5\" fill=\"red\"><title>leak: " << xml_escape_text(format_allocation(leak))
          << "</title></circle>\n";
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace devplan::harness
