// BundledProgram: a bundled program file (`.bpte`, ExecuTorch's `bundled_program` format, file
// identifier BP08) read in place: the program it carries and the test sets of its methods.
//
//   if (is_bundled_program(bytes)) {
//     Result<BundledProgram> b = BundledProgram::parse(bytes);
//     Program::load_from_bytes(b->program);                   // the .pte inside
//     for (const BundledTestSuite& s : b->suites) ...         // s.method_name, s.cases
//   }
//
// Everything is verified at parse: the flatbuffer, every value's kind, every tensor's dtype and
// that its data holds exactly sizes' elements. The spans point into the bytes given, which must
// outlive the BundledProgram. The file carries no tolerances (see bundled_program.fbs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

// One input or expected output: a tensor, an int, a bool or a double.
struct BundledValue {
  ValueTag tag = ValueTag::None;  // Tensor, Int, Bool or Double
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  Span<const uint8_t> data;  // the tensor's elements
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
};

struct BundledTestCase {
  std::vector<BundledValue> inputs;
  std::vector<BundledValue> expected_outputs;
};

struct BundledTestSuite {
  std::string method_name;
  std::vector<BundledTestCase> cases;
};

struct BundledProgram {
  static constexpr char kFileIdentifier[5] = "BP08";

  uint32_t version = 0;
  std::vector<BundledTestSuite> suites;
  Span<const uint8_t> program;  // the .pte bytes inside
  uint64_t program_offset = 0;  // where they start in the bundle

  // InvalidProgram naming what is wrong ("bundled program: test case 1 of method 'forward':
  // input 0: 12 bytes of data for float32[2, 2] (16 expected)"); for a file of another
  // identifier, "not a bundled program".
  static Result<BundledProgram> parse(Span<const uint8_t> bytes);
};

// Bytes 4..7 are BP08.
bool is_bundled_program(Span<const uint8_t> bytes);

}  // namespace devplan
