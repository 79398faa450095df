#include <harness/output/junit.h>

#include <sstream>

#include <harness/output/svg.h>
#include <harness/output/xml_text.h>

namespace devplan::harness {

std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases,
                      double seconds) {
  size_t failures = 0;
  for (const JunitCase& c : cases) failures += c.failure.empty() ? 0 : 1;
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites tests=\"" << cases.size() << "\" failures=\"" << failures << "\" time=\""
      << svg_number(seconds) << "\">\n"
      << "  <testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << cases.size()
      << "\" failures=\"" << failures << "\" errors=\"0\" time=\"" << svg_number(seconds)
      << "\">\n";
  for (const JunitCase& c : cases) {
    xml << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\""
        << xml_escape(c.name) << "\" time=\"" << svg_number(c.seconds) << "\"";
    if (c.failure.empty()) {
      xml << "/>\n";
      continue;
    }
    const size_t eol = c.failure.find('\n');
    xml << ">\n      <failure message=\"" << xml_escape(c.failure.substr(0, eol)) << "\">"
        << xml_escape_text(c.failure) << "</failure>\n    </testcase>\n";
  }
  xml << "  </testsuite>\n</testsuites>\n";
  return xml.str();
}

}  // namespace devplan::harness
