// libFuzzer target: arbitrary bytes through the program loader, MethodMeta, and Module's
// load_method / execute / unload_method on the simulated device (see program_load_entry.h).
// A finding (device memory live after unload, allocator misuse, an error without a message,
// ...) is printed and aborts, so libFuzzer saves the input as a crash.
//
//   scripts/fuzz.sh fuzz_program_load 600
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <libfuzzer/program_load_entry.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const devplan::fuzz::ProgramLoadOutcome outcome =
      devplan::fuzz::run_program_load(devplan::Span<const uint8_t>(data, size));
  if (!outcome.clean()) {
    std::fprintf(stderr, "fuzz_program_load finding:\n%s", outcome.finding.c_str());
    std::abort();
  }
  return 0;
}
