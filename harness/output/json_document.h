// Every JSON document devplan prints starts with the same two members, so scripts can tell
// which tool version wrote it and which shape to expect:
//
//   {"devplan_version": "0.1.0", "schema_version": 1, ...}
//
// schema_version changes when a member is removed or changes meaning; adding members does not
// change it.
#pragma once

#include <harness/json/json.h>

namespace devplan::harness {

constexpr int kJsonSchemaVersion = 1;

// The version from CMake's project() ("0.1.0").
const char* devplan_version();

// An object holding devplan_version and schema_version, for the caller to add to.
Json json_document();

}  // namespace devplan::harness
