// A report row as JSON on the wire between `devplan report` and the child process that measures
// a program under ExecuTorch (report.h): every field, what is missing as names, not text. Not
// the report's --json entry (harness/output/report_output.h prints that).
#pragma once

#include <harness/json/json.h>
#include <harness/services/report_row.h>

namespace devplan::harness {

Json row_wire_json(const ProgramRow& row);
// The row `row_wire_json` wrote; throws Json::exception on JSON of another shape.
ProgramRow row_from_wire_json(const Json& j);

}  // namespace devplan::harness
