#include <harness/output/plan_svg.h>

#include <algorithm>
#include <sstream>

#include <harness/output/svg.h>
#include <harness/output/xml_text.h>

// Every name (the title, method names, devices) goes through xml_escape_text/xml_escape
// (harness/output/xml_text.h), so the SVG is always well-formed XML 1.0 in UTF-8, and so is the
// HTML page (its one void element is self-closed), which HTML5 parsers read the same way.

namespace devplan::harness {
namespace {

constexpr double kLeft = 90;  // room for byte labels
constexpr double kPanelWidth = 640;
constexpr double kPanelHeight = 160;
constexpr double kPanelGap = 56;  // label above each panel, axis text below
constexpr double kMethodGap = 36;

std::string tensor_title(size_t value, const TensorInfo& t, const Lifetime& life) {
  std::ostringstream s;
  s << "value " << value << ": " << scalar_type_name(t.dtype) << "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) s << (i ? ", " : "") << t.sizes[i];
  s << "] on " << t.device.to_string() << ", " << t.nbytes << " B at [" << t.offset << ", "
    << t.offset + t.nbytes << "), ";
  if (life.first < 0) {
    s << "never used";
  } else {
    s << "live during instructions " << life.first << ".." << life.last;
  }
  return s.str();
}

// Writes one method's panels at vertical position `y`; returns the height used.
double write_method(std::ostringstream& svg, const PlotMethod& m, double y) {
  const MethodPlan& plan = *m.plan;
  const MethodCheck& check = m.check;
  svg << "<text class=\"method-label\" x=\"4\" y=\"" << svg_number(y + 16)
      << "\" font-size=\"15\" font-weight=\"bold\">method " << xml_escape_text(plan.name) << " ("
      << check.num_steps << " instructions)</text>\n";
  double top = y + 28;
  const double steps = std::max(1, check.num_steps);
  const double step_w = kPanelWidth / steps;
  for (size_t b = 0; b < plan.buffer_sizes.size(); ++b) {
    const uint64_t size = plan.buffer_sizes[b];
    const std::string device = plan.buffer_devices[b].to_string();
    const double scale = size == 0 ? 0 : kPanelHeight / static_cast<double>(size);
    const double panel_top = top + 18;
    svg << "<text class=\"buffer-label\" x=\"" << svg_number(kLeft) << "\" y=\""
        << svg_number(top + 12) << "\" font-size=\"12\">buffer " << b << ": " << size << " B on "
        << xml_escape_text(device) << " (lower bound " << check.buffers[b].lower_bound
        << " B)</text>\n";
    svg << "<rect class=\"panel\" x=\"" << svg_number(kLeft) << "\" y=\"" << svg_number(panel_top)
        << "\" width=\"" << svg_number(kPanelWidth) << "\" height=\"" << svg_number(kPanelHeight)
        << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
    svg << "<text x=\"" << svg_number(kLeft - 4) << "\" y=\"" << svg_number(panel_top + 10)
        << "\" font-size=\"10\" text-anchor=\"end\">0</text>\n";
    svg << "<text x=\"" << svg_number(kLeft - 4) << "\" y=\""
        << svg_number(panel_top + kPanelHeight) << "\" font-size=\"10\" text-anchor=\"end\">"
        << size << " B</text>\n";
    for (size_t v = 0; v < plan.values.size(); ++v) {
      const ValueInfo& value = plan.values[v];
      if (value.tag != ValueTag::Tensor || !value.tensor.is_planned() ||
          value.tensor.buffer_index != b) {
        continue;
      }
      const TensorInfo& t = value.tensor;
      const Lifetime& life = check.lifetimes[v];
      const bool live = life.first >= 0;
      const double x = kLeft + (live ? life.first : 0) * step_w;
      const double w = live ? (life.last - life.first + 1) * step_w : kPanelWidth;
      const double ry = panel_top + static_cast<double>(t.offset) * scale;
      const double h = std::max(1.0, static_cast<double>(t.nbytes) * scale);
      svg << "<rect class=\"tensor\" data-value=\"" << v << "\" x=\"" << svg_number(x) << "\" y=\""
          << svg_number(ry) << "\" width=\"" << svg_number(w) << "\" height=\"" << svg_number(h)
          << "\" fill=\"" << device_colour(t.device.to_string()) << "\" fill-opacity=\""
          << (live ? "0.75" : "0.25") << "\" stroke=\"#333\" stroke-width=\"0.5\"><title>"
          << xml_escape_text(tensor_title(v, t, life)) << "</title></rect>\n";
    }
    for (const Overlap& o : check.overlaps) {
      if (o.buffer != b) continue;
      const uint64_t begin = std::max(o.a_begin, o.b_begin);
      const uint64_t end = std::min(o.a_end, o.b_end);
      svg << "<rect class=\"overlap\" x=\"" << svg_number(kLeft + o.first_step * step_w)
          << "\" y=\"" << svg_number(panel_top + static_cast<double>(begin) * scale)
          << "\" width=\"" << svg_number((o.last_step - o.first_step + 1) * step_w)
          << "\" height=\"" << svg_number(std::max(1.0, static_cast<double>(end - begin) * scale))
          << "\" fill=\"red\" fill-opacity=\"0.8\"><title>"
          << xml_escape_text("OVERLAP " + describe_overlap(o)) << "</title></rect>\n";
    }
    svg << "<text x=\"" << svg_number(kLeft) << "\" y=\""
        << svg_number(panel_top + kPanelHeight + 14)
        << "\" font-size=\"10\">instruction 0</text>\n";
    svg << "<text x=\"" << svg_number(kLeft + kPanelWidth) << "\" y=\""
        << svg_number(panel_top + kPanelHeight + 14) << "\" font-size=\"10\" text-anchor=\"end\">"
        << "instruction " << (check.num_steps - 1) << "</text>\n";
    top = panel_top + kPanelHeight + kPanelGap - 18;
  }
  return top - y + kMethodGap;
}

double method_height(const PlotMethod& m) {
  return 28 + static_cast<double>(m.plan->buffer_sizes.size()) * (kPanelHeight + kPanelGap) +
         kMethodGap;
}

std::string svg_document(const std::string& title, const std::vector<PlotMethod>& methods) {
  double height = 30;
  for (const PlotMethod& m : methods) height += method_height(m);
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << svg_number(kLeft + kPanelWidth + 20) << "\" height=\"" << svg_number(height)
      << "\" font-family=\"sans-serif\">\n";
  svg << "<title>" << xml_escape_text(title) << "</title>\n";
  svg << "<text x=\"4\" y=\"18\" font-size=\"13\">" << xml_escape_text(title)
      << " — x: instruction, y: byte offset; red: overlapping live tensors</text>\n";
  double y = 30;
  for (const PlotMethod& m : methods) y += write_method(svg, m, y);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace

std::string plan_svg(const std::string& title, const std::vector<PlotMethod>& methods) {
  return svg_document(title, methods);
}

std::string plan_html(const std::string& title, const std::vector<PlotMethod>& methods) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><title>" << xml_escape_text(title)
       << "</title></head>\n<body style=\"font-family: sans-serif\">\n<h1>"
       << xml_escape_text(title) << "</h1>\n";
  for (const PlotMethod& m : methods) {
    html << "<h2>" << xml_escape_text(m.plan->name) << "</h2>\n" << svg_document(m.plan->name, {m});
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace devplan::harness
