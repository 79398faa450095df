#include <executorch_testing/leak_checked_test.h>

#include <executorch/runtime/platform/runtime.h>

#include <fixtures/device_memory_check.h>

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

LeakCheckedTest::~LeakCheckedTest() {
  if (!checked_) {
    ADD_FAILURE() << "LeakCheckedTest::TearDown() did not run; a fixture overriding TearDown() "
                     "must call LeakCheckedTest::TearDown()";
  }
}

void LeakCheckedTest::TearDown() {
  checked_ = true;
  ::testing::AssertionResult result = check_device_memory();
  if (!result) ADD_FAILURE() << result.message();
}

::testing::AssertionResult LeakCheckedTest::check_device_memory() const {
  return ::devplan::check_device_memory(allocator_.tracking(), expected_leaks_, expected_misuse_,
                                        /*with_ledger=*/true);
}

}  // namespace devplan::executorch_testing
