// Every option that takes a number, at its edges: the smallest and the largest value its own
// message allows, and the first value past each end, which is a usage error (exit 2) whose
// message names the option and the range. One row a value.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

constexpr const char* kMaxU64 = "18446744073709551615";
constexpr const char* kMaxU64PlusOne = "18446744073709551616";

struct Row {
  const char* option;
  std::string value;
  // "" when the value is taken (the command then runs: exit `exit`); else the usage error's
  // text after "devplan <command>: <option>: ".
  std::string refused;
  int exit = 0;
};

// Runs `command` with `base` and `option value` for each row; checks the exit and message.
void check_rows(testing::CommandFn command, const std::string& name,
                const std::vector<std::string>& base, const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    std::vector<std::string> args = base;
    args.push_back(row.option);
    args.push_back(row.value);
    SCOPED_TRACE(name + " " + row.option + " " + row.value);
    const testing::CommandResult r = testing::run(command, args);
    if (row.refused.empty()) {
      EXPECT_EQ(r.exit_code, row.exit) << r.out << r.err;
    } else {
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
      EXPECT_EQ(r.err, "devplan " + name + ": " + row.option + ": " + row.refused +
                           "\nRun 'devplan " + name + " --help' for the options.\n");
    }
  }
}

std::string whole_number(const std::string& min, const std::string& got) {
  return "expects a whole decimal number in [" + min + ", 18446744073709551615], got '" + got + "'";
}

TEST(OptionBoundaries, CheckBudgetSteps) {
  const auto refused = [](const std::string& v) {
    return "'" + v + "' is not a number of steps (0 to 10^18)";
  };
  check_rows(&check_command, "check", {testing::real_program("add.pte")},
             {{"--budget-steps", "0", ""},
              {"--budget-steps", "1000000000000000000", ""},
              {"--budget-steps", "1000000000000000001", refused("1000000000000000001")},
              {"--budget-steps", "-1", refused("-1")}});
}

TEST(OptionBoundaries, SimulateCounts) {
  const std::string program = testing::real_program("add.pte");
  const std::string ceiling_zero = "a ceiling of 0 bytes admits nothing";
  const std::string too_large =
      "invalid byte size '18446744073709551616': too large (expected a whole number of bytes "
      "with an optional unit: 4096, 512KiB, 64MB, 1GiB)";
  check_rows(
      &simulate_command, "simulate", {program},
      {{"--fail-alloc", "1", ""},
       {"--fail-alloc", kMaxU64, ""},
       {"--fail-alloc", "0", whole_number("1", "0")},
       {"--fail-alloc", kMaxU64PlusOne, whole_number("1", kMaxU64PlusOne)},
       {"--max-device-allocation", "1", ""},
       {"--max-device-allocation", kMaxU64, ""},
       {"--max-device-allocation", "0", ceiling_zero},
       {"--max-device-allocation", kMaxU64PlusOne, too_large},
       // Taken: the 48-byte buffer is then over the limit (a load error, not a usage one).
       {"--max-host-buffer", "1", "", 1},
       {"--max-host-buffer", "48", ""},
       {"--max-host-buffer", "0", ceiling_zero},
       {"--capacity", "cuda:0=0", ""},
       {"--capacity", std::string("cuda:127=") + kMaxU64, ""},
       {"--capacity", std::string("cuda:0=") + kMaxU64PlusOne, too_large},
       {"--capacity", "cuda:128=1",
        "invalid device 'cuda:128': index must be a number from 0 to 127"},
       {"--place", "0=cuda:127", ""},
       {"--place", "0=cuda:128", "invalid device 'cuda:128': index must be a number from 0 to 127"},
       {"--place", "2147483648=cuda:0",
        "buffer index '2147483648' is not a number in [0, 2147483647]"},
       // The shortest texts around the '=': each side must hold something.
       {"--place", "0=", "expects INDEX=DEVICE, got '0='"},
       {"--place", "=cuda:0", "expects INDEX=DEVICE, got '=cuda:0'"},
       {"--place", "=", "expects INDEX=DEVICE, got '='"},
       {"--place", "0", "expects INDEX=DEVICE, got '0'"}});
}

TEST(OptionBoundaries, RunTolerances) {
  const std::string program = testing::real_program("add.pte");
  for (const char* option : {"--rtol", "--atol"}) {
    const auto refused = [](const std::string& v) {
      return "expects a finite number, 0 or above, got '" + v + "'";
    };
    check_rows(&run_command, "run", {program},
               {{option, "0", ""},
                {option, "1.7976931348623157e308", ""},
                {option, "-4.9e-324", refused("-4.9e-324")},
                {option, "inf", refused("inf")},
                {option, "nan", refused("nan")},
                {option, "1e309", refused("1e309")}});
  }
}

TEST(OptionBoundaries, FuzzCountsDurationAndShard) {
  const std::string shard = "expects I/N with 0 <= I < N, got '";
  check_rows(&fuzz_command, "fuzz", {"--cases", "1"},
             {{"--seed", "0", ""},
              {"--seed", kMaxU64, ""},
              {"--seed", kMaxU64PlusOne, whole_number("0", kMaxU64PlusOne)},
              {"--seconds", "1e-300", ""},
              {"--seconds", "0", "expects a finite number above 0, got '0'"},
              {"--seconds", "inf", "expects a finite number above 0, got 'inf'"},
              {"--shard", "0/1", ""},
              {"--shard", "4294967294/4294967295", ""},
              {"--shard", "1/1", shard + "1/1'"},
              {"--shard", "0/4294967296", shard + "0/4294967296'"},
              {"--shard", "0/0", shard + "0/0'"}});
  check_rows(&fuzz_command, "fuzz", {},
             {{"--cases", "1", ""}, {"--cases", "0", whole_number("1", "0")}});
}

TEST(OptionBoundaries, ReportCounts) {
  const std::string out = testing::temp_dir();
  check_rows(&report_command, "report",
             {"--out", out, "--fuzz-cases", "0", testing::real_program("add.pte")},
             {{"--seed", kMaxU64, ""},
              {"--seed", kMaxU64PlusOne, whole_number("0", kMaxU64PlusOne)},
              {"--fuzz-cases", "-1", whole_number("0", "-1")}});
}

TEST(OptionBoundaries, Percentages) {
  const std::string program = testing::real_program("add.pte");
  const std::string budget = testing::temp_dir() + "/budget.json";
  ASSERT_EQ(testing::run(&budget_command, {"record", program, "-o", budget}).exit_code, 0);
  const auto refused = [](const std::string& v) {
    return "expects a percentage (a finite number, 0 or above, like 3 or 2.5), got '" + v + "'";
  };
  const std::string huge = "1" + std::string(400, '0');
  for (const char* option : {"--tolerance", "--allocation-tolerance"}) {
    check_rows(&budget_command, "budget check", {"check", budget, program},
               {{option, "0", ""},
                {option, "2.5", ""},
                {option, std::string(300, '9'), ""},
                {option, huge, refused(huge)},
                {option, "-1", refused("-1")},
                {option, "1e3", refused("1e3")},
                {option, ".", refused(".")}});
  }
  std::ifstream in(program, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  check_rows(&diff_command, "diff", {program, testing::temp_file(bytes)},
             {{"--fail-on-growth", "0", ""}, {"--fail-on-growth", "nan", refused("nan")}});
}

}  // namespace
}  // namespace devplan::harness
