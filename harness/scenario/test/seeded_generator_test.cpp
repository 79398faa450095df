#include <harness/scenario/seeded_generator.h>

#include <ctime>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include <harness/scenario/writer.h>

namespace devplan {
namespace {

constexpr int kSeeds = 2000;

TEST(ScenarioGeneratorTest, MethodNames) {
  EXPECT_EQ(scenario_method_name(0), "forward");
  EXPECT_EQ(scenario_method_name(1), "encode");
  EXPECT_EQ(scenario_method_name(2), "decode");
  EXPECT_EQ(scenario_method_name(3), "prefill");
  EXPECT_EQ(scenario_method_name(4), "method4");
  EXPECT_EQ(scenario_method_name(17), "method17");
}

TEST(ScenarioGeneratorTest, SameSeedSameScenario) {
  for (uint64_t seed : {0ull, 1ull, 42ull, 0xdeadbeefull}) {
    EXPECT_EQ(generate_program_scenario(seed), generate_program_scenario(seed)) << seed;
    EXPECT_EQ(build_program(generate_program_scenario(seed)),
              build_program(generate_program_scenario(seed)))
        << seed;
  }
}

TEST(ScenarioGeneratorTest, SeedsGiveDifferentScenarios) {
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    seen.insert(describe_program_scenario(generate_program_scenario(seed)));
  }
  EXPECT_GE(seen.size(), 95u);
}

// Fixed seeds give these scenarios on every platform and in every build: guards the generator
// against accidental changes (which would change what a recorded `devplan fuzz` seed replays).
TEST(ScenarioGeneratorTest, SeedsAreStable) {
  ScenarioOptions small;
  small.max_methods = 2;
  small.max_buffers = 3;
  small.max_tensors = 4;
  small.max_values = 3;
  small.max_instructions = 5;
  EXPECT_EQ(
      describe_program_scenario(generate_program_scenario(1, small)),
      "method forward: buffer 0 2976 B cuda:2, buffer 1 54 B cpu:0\n"
      "  tensors: t0 int64[3, 3, 2] in buffer 0 at 144\n"
      "  values: v0 BoolList [false, false, true, false], v1 Null, v2 IntList [2]\n"
      "  outputs: t0\n"
      "method encode: no buffers\n"
      "  values: v0 TensorList [], v1 Double -1.75, v2 BoolList [true, true, false, false]\n");
  EXPECT_EQ(describe_program_scenario(generate_program_scenario(3, small)),
            "method forward: buffer 0 2455 B cpu:0\n"
            "  tensors: t0 int32[1, 1] in buffer 0 at 976\n"
            "  values: v0 Int 4\n"
            "  outputs: t0\n"
            "method encode: no buffers\n"
            "  values: v0 Int 1\n");
}

TEST(ScenarioGeneratorTest, EveryScenarioIsValidAndWithinTheOptions) {
  const ScenarioOptions o;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const ProgramScenario s = generate_program_scenario(seed, o);
    const Error err = validate_program_scenario(s);
    ASSERT_TRUE(err.ok()) << "seed " << seed << ": " << err << "\n" << describe_program_scenario(s);
    ASSERT_GE(s.methods.size(), 1u);
    ASSERT_LE(s.methods.size(), 4u);
    for (const MethodScenario& m : s.methods) {
      ASSERT_LE(m.buffers.size(), 32u);
      ASSERT_LE(m.tensors.size(), 24u);
      ASSERT_LE(m.instructions.size(), 16u);
      ASSERT_LE(m.inputs.size(), 2u);
      ASSERT_LE(m.outputs.size(), 2u);
      for (const ScenarioBuffer& b : m.buffers) {
        ASSERT_LE(b.size, uint64_t{1} << 20);
        ASSERT_TRUE(b.device == Device::cpu() ||
                    (b.device.type == DeviceType::CUDA && b.device.index <= 3))
            << b.device;
      }
      for (const ScenarioTensor& t : m.tensors) {
        ASSERT_TRUE(t.dtype == ScalarType::Float || t.dtype == ScalarType::Int ||
                    t.dtype == ScalarType::Long);
        ASSERT_LE(t.shape.size(), 3u);
      }
    }
  }
}

// Over many seeds every kind of buffer, device, value and instruction shows up.
TEST(ScenarioGeneratorTest, CoversEveryCase) {
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const ProgramScenario s = generate_program_scenario(seed);
    seen["methods " + std::to_string(s.methods.size())]++;
    for (const MethodScenario& m : s.methods) {
      if (m.buffers.empty()) seen["no buffers"]++;
      if (m.buffers.size() == 32) seen["32 buffers"]++;
      for (const ScenarioBuffer& b : m.buffers) {
        seen[b.device.to_string()]++;
        if (b.size == 0) seen["zero-size buffer"]++;
        if (b.size > 0 && b.size <= 64) seen["tiny buffer"]++;
        if (b.size % 16 != 0) seen["unaligned buffer"]++;
        if (b.size > 65536) seen["large buffer"]++;
      }
      for (size_t t = 0; t < m.tensors.size(); ++t) {
        seen[std::string("tensor on ") + (m.tensor_device(t).is_cpu() ? "cpu" : "device")]++;
        if (scenario_tensor_nbytes(m.tensors[t]) == 0) seen["zero-byte tensor"]++;
        if (m.tensors[t].offset > 0) seen["tensor at an offset"]++;
        seen[scalar_type_name(m.tensors[t].dtype)]++;
      }
      for (const ScenarioValue& v : m.values) seen[scenario_value_kind_name(v.kind)]++;
      for (const ScenarioInstruction& in : m.instructions) seen[scenario_op_name(in.op)]++;
      if (!m.inputs.empty()) seen["inputs"]++;
      if (!m.outputs.empty()) seen["outputs"]++;
    }
  }
  for (const char* key : {"methods 1",
                          "methods 2",
                          "methods 3",
                          "methods 4",
                          "no buffers",
                          "32 buffers",
                          "cpu:0",
                          "cuda:0",
                          "cuda:1",
                          "cuda:2",
                          "cuda:3",
                          "zero-size buffer",
                          "tiny buffer",
                          "unaligned buffer",
                          "large buffer",
                          "tensor on cpu",
                          "tensor on device",
                          "zero-byte tensor",
                          "tensor at an offset",
                          "float32",
                          "int32",
                          "int64",
                          "Null",
                          "Int",
                          "Bool",
                          "Double",
                          "IntList",
                          "DoubleList",
                          "BoolList",
                          "TensorList",
                          "add",
                          "mul",
                          "h2d",
                          "d2h",
                          "delegate",
                          "move",
                          "free",
                          "inputs",
                          "outputs"}) {
    EXPECT_GT(seen[key], 0) << key;
  }
  // Executable chains are common, not rare.
  EXPECT_GT(seen["delegate"], kSeeds / 2);
  EXPECT_GT(seen["h2d"], kSeeds / 2);
  EXPECT_GT(seen["add"], kSeeds / 2);
}

TEST(ScenarioGeneratorTest, HonoursOptions) {
  ScenarioOptions o;
  o.min_methods = 2;
  o.max_methods = 2;
  o.max_buffers = 3;
  o.max_buffer_bytes = 100;
  o.devices = {Device::cuda(1)};
  o.dtypes = {ScalarType::Double};
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const ProgramScenario s = generate_program_scenario(seed, o);
    ASSERT_TRUE(validate_program_scenario(s).ok());
    ASSERT_EQ(s.methods.size(), 2u);
    for (const MethodScenario& m : s.methods) {
      ASSERT_LE(m.buffers.size(), 3u);
      for (const ScenarioBuffer& b : m.buffers) {
        ASSERT_LE(b.size, 100u);
        ASSERT_EQ(b.device, Device::cuda(1));
      }
      for (const ScenarioTensor& t : m.tensors) ASSERT_EQ(t.dtype, ScalarType::Double);
      for (const ScenarioInstruction& in : m.instructions) {
        // No host tensors: only delegate calls, moves and frees can be resolved.
        ASSERT_TRUE(in.op == ScenarioOp::DelegateAdd || in.op == ScenarioOp::Move ||
                    in.op == ScenarioOp::Free)
            << scenario_op_name(in.op);
      }
    }
  }
}

// ---- resolve_method_draft -----------------------------------------------------------------

MethodDraft base_draft() {
  MethodDraft d;
  d.name = "m";
  d.buffers = {
      {8, Device::cpu()}, {0, Device::cuda(0)}, {32, Device::cuda(1)}, {64, Device::cpu()}};
  d.types = {{ScalarType::Float, {2, 2}}};
  return d;
}

TEST(ResolveDraftTest, TensorGoesToTheFirstBufferThatFits) {
  MethodDraft d = base_draft();
  d.tensors = {{5, 0, 1000}, {0, 2, 17}, {0, 6, 33}, {0, 3, 48}};
  const MethodScenario m = resolve_method_draft(d);
  // 16-byte tensors: buffer 0 (8 B) and 1 (0 B) are too small, so buffer 2; offsets taken
  // modulo the slots that fit (2 in buffer 2, 4 in buffer 3).
  ASSERT_EQ(m.tensors.size(), 4u);
  EXPECT_EQ(m.tensors[0], (ScenarioTensor{ScalarType::Float, {2, 2}, 2, 0}));
  EXPECT_EQ(m.tensors[1], (ScenarioTensor{ScalarType::Float, {2, 2}, 2, 16}));
  EXPECT_EQ(m.tensors[2], (ScenarioTensor{ScalarType::Float, {2, 2}, 2, 0}));
  EXPECT_EQ(m.tensors[3], (ScenarioTensor{ScalarType::Float, {2, 2}, 3, 48}));
}

TEST(ResolveDraftTest, DropsTensorsThatFitNowhere) {
  MethodDraft d = base_draft();
  d.types = {{ScalarType::Long, {3, 3}}};  // 72 bytes: larger than every buffer
  d.tensors = {{0, 0, 0}};
  EXPECT_TRUE(resolve_method_draft(d).tensors.empty());
  d.types.clear();
  EXPECT_TRUE(resolve_method_draft(d).tensors.empty());
  d = base_draft();
  d.buffers.clear();
  d.tensors = {{0, 0, 0}};
  EXPECT_TRUE(resolve_method_draft(d).tensors.empty());
}

TEST(ResolveDraftTest, RepairsTypesAndDevices) {
  MethodDraft d = base_draft();
  d.types = {{static_cast<ScalarType>(99), {-3, 1}}};
  d.tensors = {{0, 0, 0}};
  d.buffers[0].device = Device::cuda(-2);
  d.buffers[1].device = Device(static_cast<DeviceType>(5), 0);
  const MethodScenario m = resolve_method_draft(d);
  EXPECT_EQ(m.buffers[0].device, Device::cpu());
  EXPECT_EQ(m.buffers[1].device, Device::cpu());
  ASSERT_EQ(m.tensors.size(), 1u);
  EXPECT_EQ(m.tensors[0], (ScenarioTensor{ScalarType::Float, {0, 1}, 0, 0}));
}

TEST(ResolveDraftTest, PicksMatchingOperands) {
  MethodDraft d = base_draft();
  // t0, t1 on cuda:1 (buffer 2); t2, t3 on the host (buffer 3).
  d.tensors = {{0, 2, 0}, {0, 2, 16}, {0, 3, 0}, {0, 3, 16}};
  ScenarioValue b;
  b.kind = ScenarioValueKind::Bool;
  ScenarioValue i;
  i.kind = ScenarioValueKind::Int;
  ScenarioValue list;
  list.kind = ScenarioValueKind::TensorList;
  list.tensor_list = {5, -1};
  d.values = {b, i, list, i};
  d.instructions = {
      {ScenarioOp::Add, {1, 1, 0, 1}},  // host tensors t2, t3; alphas v1, v3
      {ScenarioOp::Mul, {0, 0, 1, 9}},
      {ScenarioOp::CopyH2D, {1, 0, 0, 0}},      // out t1, self t2
      {ScenarioOp::CopyD2H, {2, 1, 0, 0}},      // self t0, out t3
      {ScenarioOp::DelegateAdd, {1, 2, 3, 0}},  // all on cuda:1
      {ScenarioOp::Move, {1, 1, 0, 0}},         // Int v1 -> second Int v3
      {ScenarioOp::Free, {5, 0, 0, 0}},         // t1 (5 % 4), a method output: dropped
      {ScenarioOp::Free, {2, 0, 0, 0}},         // t2: nothing reads it afterwards
  };
  d.inputs = {2, 6, 3};
  d.outputs = {1};
  const MethodScenario m = resolve_method_draft(d);
  EXPECT_EQ(m.values[2].tensor_list, (std::vector<int32_t>{1, 3}));  // 5 % 4, 0xffffffff % 4
  ASSERT_EQ(m.instructions.size(), 7u);
  EXPECT_EQ(m.instructions[0], (ScenarioInstruction{ScenarioOp::Add, {3, 3, 2}, {3}}));
  EXPECT_EQ(m.instructions[1], (ScenarioInstruction{ScenarioOp::Mul, {2, 2, 3}, {}}));
  EXPECT_EQ(m.instructions[2], (ScenarioInstruction{ScenarioOp::CopyH2D, {2, 1}, {}}));
  EXPECT_EQ(m.instructions[3], (ScenarioInstruction{ScenarioOp::CopyD2H, {0, 3}, {}}));
  EXPECT_EQ(m.instructions[4], (ScenarioInstruction{ScenarioOp::DelegateAdd, {1, 0, 1}, {}}));
  EXPECT_EQ(m.instructions[5], (ScenarioInstruction{ScenarioOp::Move, {}, {1, 3}}));
  EXPECT_EQ(m.instructions[6], (ScenarioInstruction{ScenarioOp::Free, {2}, {}}));
  EXPECT_EQ(m.inputs, (std::vector<int32_t>{2, 3}));  // 6 % 4 == 2 again: dropped
  EXPECT_EQ(m.outputs, (std::vector<int32_t>{1}));
  EXPECT_TRUE(validate_program_scenario(ProgramScenario{{m}}).ok());
}

TEST(ResolveDraftTest, FreesOnlyTensorsThatNothingReadsAfterwards) {
  MethodDraft d = base_draft();
  d.tensors = {{0, 3, 0}, {0, 3, 16}, {0, 3, 32}};  // t0, t1, t2 on the host (buffer 3)
  ScenarioValue i;
  i.kind = ScenarioValueKind::Int;
  d.values = {i};
  d.instructions = {
      {ScenarioOp::Free, {0, 0, 0, 0}},  // t0, read by the add below: dropped
      {ScenarioOp::Free, {4, 0, 0, 0}},  // t1 (4 % 3), read by the add below: dropped
      {ScenarioOp::Add, {0, 1, 2, 0}},   // t0 + t1 -> t2
      {ScenarioOp::Free, {1, 0, 0, 0}},  // t1: kept, nothing reads it afterwards
      {ScenarioOp::Free, {2, 0, 0, 0}},  // t2: the method output, dropped
  };
  d.outputs = {2};
  const MethodScenario m = resolve_method_draft(d);
  ASSERT_EQ(m.instructions.size(), 2u);
  EXPECT_EQ(m.instructions[0].op, ScenarioOp::Add);
  EXPECT_EQ(m.instructions[1], (ScenarioInstruction{ScenarioOp::Free, {1}, {}}));
  EXPECT_TRUE(validate_program_scenario(ProgramScenario{{m}}).ok());
}

TEST(ResolveDraftTest, DropsInstructionsWithoutOperands) {
  MethodDraft d = base_draft();
  d.tensors = {{0, 3, 0}};  // one host tensor, no Int value, no device tensor
  d.instructions = {{ScenarioOp::Add, {}},     {ScenarioOp::CopyH2D, {}},
                    {ScenarioOp::CopyD2H, {}}, {ScenarioOp::DelegateAdd, {}},
                    {ScenarioOp::Move, {}},    {ScenarioOp::Mul, {}}};
  const MethodScenario m = resolve_method_draft(d);
  ASSERT_EQ(m.instructions.size(), 1u);
  EXPECT_EQ(m.instructions[0].op, ScenarioOp::Mul);
  // A Double alpha serves float tensors, not integer ones.
  ScenarioValue half;
  half.kind = ScenarioValueKind::Double;
  half.double_value = 0.5;
  d.values = {half};
  d.instructions = {{ScenarioOp::Add, {}}};
  EXPECT_EQ(resolve_method_draft(d).instructions.size(), 1u);
  d.types[0].dtype = ScalarType::Int;
  EXPECT_EQ(resolve_method_draft(d).instructions.size(), 0u);
  d.types[0].dtype = ScalarType::Half;  // no kernel
  d.values[0].kind = ScenarioValueKind::Int;
  EXPECT_EQ(resolve_method_draft(d).instructions.size(), 0u);
}

TEST(ResolveDraftTest, EmptyNumericListsGetOneItem) {
  MethodDraft d = base_draft();
  ScenarioValue ints;
  ints.kind = ScenarioValueKind::IntList;
  ScenarioValue doubles;
  doubles.kind = ScenarioValueKind::DoubleList;
  ScenarioValue bools;
  bools.kind = ScenarioValueKind::BoolList;
  d.values = {ints, doubles, bools};
  const MethodScenario m = resolve_method_draft(d);
  EXPECT_EQ(m.values[0].int_list, (std::vector<int64_t>{0}));
  EXPECT_EQ(m.values[1].double_list, (std::vector<double>{0.0}));
  EXPECT_TRUE(m.values[2].bool_list.empty());
}

TEST(ResolveDraftTest, FixesMethodNames) {
  ProgramDraft d;
  d.methods.resize(4);
  d.methods[0].name = "encode";
  d.methods[1].name = "";
  d.methods[2].name = "encode";
  d.methods[3].name = "x";
  const ProgramScenario s = resolve_program_draft(d);
  ASSERT_EQ(s.methods.size(), 4u);
  EXPECT_EQ(s.methods[0].name, "encode");
  EXPECT_EQ(s.methods[1].name, "method1_1") << "its position's name 'encode' is taken";
  EXPECT_EQ(s.methods[2].name, "decode");
  EXPECT_EQ(s.methods[3].name, "x");
  EXPECT_TRUE(validate_program_scenario(s).ok());
}

TEST(ResolveDraftTest, EmptyDraftIsOneEmptyMethod) {
  const ProgramScenario s = resolve_program_draft(ProgramDraft());
  ASSERT_EQ(s.methods.size(), 1u);
  EXPECT_EQ(describe_program_scenario(s), "method forward: no buffers\n");
}

// `devplan fuzz` needs >= 2,000 generated cases per second per core; generating and writing
// them must cost well under that budget (CPU time, so machine load does not matter).
TEST(ScenarioGeneratorTest, GeneratesAndBuildsQuickly) {
  const std::clock_t start = std::clock();
  size_t bytes = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed)
    bytes += build_program(generate_program_scenario(seed)).size();
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_GT(bytes, 0u);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const double budget = 5.0;  // sanitizers slow everything down several times
#else
  const double budget = 1.0;
#endif
  EXPECT_LT(seconds, budget) << "2000 scenarios took " << seconds << " s of CPU time";
}

}  // namespace
}  // namespace devplan
