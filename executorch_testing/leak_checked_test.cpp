#include <executorch_testing/leak_checked_test.h>

#include <executorch/runtime/platform/runtime.h>
namespace devplan::executorch_testing {

LeakCheckedTest::LeakCheckedTest() {
  static const bool initialised = [] {
    ::executorch::runtime::runtime_init();
    return true;
  }();
  (void)initialised;
  if (!scoped_.status().ok()) {
    ADD_FAILURE() << "devplan::executorch_testing::LeakCheckedTest cannot install its allocator: "
                  << scoped_.status().message();
  }
}

LeakCheckedTest::~LeakCheckedTest() = default;

}  // namespace devplan::executorch_testing
