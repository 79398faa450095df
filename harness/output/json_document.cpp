#include <harness/output/json_document.h>

#ifndef DEVPLAN_VERSION
#error "DEVPLAN_VERSION must be defined by the build (project() VERSION)"
#endif

namespace devplan::harness {

const char* devplan_version() { return DEVPLAN_VERSION; }

Json json_document() {
  Json doc = Json::object();
  doc["devplan_version"] = devplan_version();
  doc["schema_version"] = kJsonSchemaVersion;
  return doc;
}

}  // namespace devplan::harness
