// JUnit XML reports, the format CI systems read to show failures as test cases.
//
//   std::vector<JunitCase> cases = {{"simulate", "forward: load", ""}, {"simulate", "leaks",
//   "..."}}; write_file("report.xml", junit_xml("devplan simulate", cases, 0.12));
#pragma once

#include <string>
#include <vector>

namespace devplan::harness {

struct JunitCase {
  std::string classname;
  std::string name;
  std::string failure;  // empty: the case passed; else the failure text (shown by CI)
  double seconds = 0;
};

// Every string (suite, class names, case names, failure text) may hold any bytes: it is
// escaped by the rule of harness/output/xml_text.h, so the document is always well-formed
// XML 1.0 in UTF-8.
std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases,
                      double seconds);

}  // namespace devplan::harness
