// A test that leaks on purpose: a Module that is never destroyed keeps its device buffer, and
// devplan's fixture must fail the test at TearDown, naming the buffer. check_planted_leak.cmake
// runs this binary and requires exactly that failure.
#include <gtest/gtest.h>

#include <executorch/extension/module/module.h>

#include <executorch_testing/leak_checked_test.h>

#include "stand_in_backend.h"

namespace {

using ::executorch::extension::module::Module;
using ::executorch::runtime::Error;

class PlantedLeak : public devplan::executorch_testing::LeakCheckedTest {};

TEST_F(PlantedLeak, AModuleThatIsNeverDestroyed) {
  register_stand_in_backend();
  auto* module = new Module(std::string(PROGRAMS_DIR) + "/devplan_one_delegate.pte");
  ASSERT_EQ(module->load_method("forward"), Error::Ok);
  // `module` is never deleted: its cuda:0 buffer stays live.
}

}  // namespace
