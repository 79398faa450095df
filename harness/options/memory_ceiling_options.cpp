#include <harness/options/memory_ceiling_options.h>

#include <harness/options/byte_size.h>

namespace devplan::harness {
namespace {

// A byte size that is not zero (a zero ceiling would refuse every buffer).
Result<uint64_t> parse_ceiling(const std::string& text) {
  DEVPLAN_ASSIGN_OR_RETURN(uint64_t bytes, cli::parse_byte_size(text));
  if (bytes == 0) return Error(ErrorCode::InvalidArgument, "a ceiling of 0 bytes admits nothing");
  return bytes;
}

void add_ceiling(CLI::App& app, const char* name, uint64_t& target, const char* help) {
  app.add_option_function<std::string>(
         name, [&target](const std::string& text) { target = *parse_ceiling(text); }, help)
      ->type_name("SIZE")
      ->check(cli::checked_by(&parse_ceiling));
}

}  // namespace

void add_memory_ceiling_options(CLI::App& app, MemoryCeilings& ceilings) {
  add_ceiling(app, "--max-device-allocation", ceilings.max_device_allocation_bytes,
              "refuse one device allocation above SIZE (default 1TiB unbacked, 4GiB "
              "host-backed, none with --device cuda)");
  add_ceiling(app, "--max-host-buffer", ceilings.max_host_buffer_bytes,
              "refuse more than SIZE of host planned memory per method (default 4GiB)");
}

}  // namespace devplan::harness
