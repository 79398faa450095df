// `devplan probe`'s output: the text report and the JSON document, side by side.
#pragma once

#include <ostream>
#include <string>

#include <harness/json/json.h>
#include <harness/services/probe.h>

namespace devplan::harness {

// file:, runtime and devices, the planted bug, a line per method (probed, or not and why), each
// finding ("UNWRITTEN method forward: ..."), notes, leaks and misuse, and the verdict line.
void write_probe_text(const std::string& file, const ProbeReport& report, std::ostream& out);

// The document of `probe --json` (schema_version 1): file, runtime, devices, injected_bug,
// methods [{name, probed, not_probed, error, executions, findings [{kind, text}], notes,
// overlaps}], leaks, misuse, findings (the count), result.
Json probe_json(const std::string& file, const ProbeReport& report);

// One overlap's verdict as JSON (check --probe's "probe" field).
Json overlap_verdict_json(const OverlapVerdict& verdict);

}  // namespace devplan::harness
