// HostModel's knowledge of each byte: a NaN result is some NaN, bytes computed from a NaN's bits
// are unspecified, and everything else is compared exactly.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "host_model.h"

namespace devplan::testing {
namespace {

using State = HostModel::ByteState;

template <typename T>
std::vector<uint8_t> bytes_of(std::vector<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

float float_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Host buffer 0 (64 B): t0, t1 float32[2] at 0 and 16, t2 float32[2] at 32, t3 int64[1] at 32
// (t2's bytes), t4 int64[1] at 48; device buffer 1 (cuda:0, 16 B): t5 float32[2] at 0.
MethodScenario float_method(std::vector<ScenarioInstruction> code) {
  MethodScenario m;
  m.name = "forward";
  m.buffers = {{64, Device::cpu()}, {16, Device::cuda(0)}};
  m.tensors = {{ScalarType::Float, {2}, 0, 0},  {ScalarType::Float, {2}, 0, 16},
               {ScalarType::Float, {2}, 0, 32}, {ScalarType::Long, {1}, 0, 32},
               {ScalarType::Long, {1}, 0, 48},  {ScalarType::Float, {2}, 1, 0}};
  m.values = {ScenarioValue()};
  m.values[0].int_value = 1;
  m.instructions = std::move(code);
  m.inputs = {0, 1};
  return m;
}

const ScenarioInstruction kAddFloats{ScenarioOp::Add, {0, 1, 2}, {0}};

TEST(HostModelTest, ANanResultIsAnyNanAndTheOtherBytesAreExact) {
  const MethodScenario m = float_method({kAddFloats});
  HostModel model(m);
  model.set_input(0, bytes_of<float>({float_bits(0x7fc00001), 1.0f}));
  model.set_input(1, bytes_of<float>({float_bits(0xfff00002), 2.0f}));
  model.execute();
  const std::vector<State>& s = model.buffer_states(0);
  EXPECT_EQ(s[32], State::Nan32);
  EXPECT_EQ(s[33], State::NanRest);
  EXPECT_EQ(s[35], State::NanRest);
  EXPECT_EQ(s[36], State::Exact);

  std::vector<uint8_t> actual = model.buffer(0);
  EXPECT_EQ(model.buffer_difference(0, actual), "");
  const std::vector<uint8_t> canonical = bytes_of<float>({std::nanf(""), 3.0f});
  std::copy(canonical.begin(), canonical.end(), actual.begin() + 32);
  EXPECT_EQ(model.buffer_difference(0, actual), "");
  EXPECT_EQ(model.tensor_difference(2, canonical), "");

  const std::vector<uint8_t> not_nan = bytes_of<float>({1.5f, 3.0f});
  std::copy(not_nan.begin(), not_nan.end(), actual.begin() + 32);
  EXPECT_EQ(model.buffer_difference(0, actual),
            "bytes 32-35: float32 1.500000 where the model has a NaN");
  const std::vector<uint8_t> wrong_sum = bytes_of<float>({std::nanf(""), 4.0f});
  EXPECT_EQ(model.tensor_difference(2, wrong_sum), "byte 6: 0x80 where the model has 0x40");
  EXPECT_EQ(model.buffer_difference(0, std::vector<uint8_t>(63)),
            "63 bytes where the model has 64");
}

TEST(HostModelTest, IntegersComputedFromANansBitsAreUnspecified) {
  // t4 = t3 + t3, where t3 holds the NaN t2[0] and the exact t2[1].
  const MethodScenario m = float_method({kAddFloats, {ScenarioOp::Add, {3, 3, 4}, {0}}});
  HostModel model(m);
  model.set_input(0, bytes_of<float>({std::nanf(""), 1.0f}));
  model.set_input(1, bytes_of<float>({1.0f, 2.0f}));
  model.execute();
  for (size_t i = 48; i < 56; ++i) EXPECT_EQ(model.buffer_states(0)[i], State::Unspecified) << i;
  std::vector<uint8_t> actual = model.buffer(0);
  for (size_t i = 48; i < 56; ++i) actual[i] ^= 0x5a;
  EXPECT_EQ(model.buffer_difference(0, actual), "");
}

TEST(HostModelTest, AnExactNanFromIntegerBytesStillGivesANanResult) {
  // A single NaN operand, exact bits: the result's payload is still open (CUDA's is canonical).
  const MethodScenario m = float_method({kAddFloats});
  HostModel model(m);
  model.set_input(0, bytes_of<float>({float_bits(0xffffffff), 1.0f}));
  model.set_input(1, bytes_of<float>({0.0f, 0.0f}));
  model.execute();
  EXPECT_EQ(model.buffer_states(0)[32], State::Nan32);
  // A NaN operand with known bits makes the result some NaN even when the other operand's bytes
  // are unspecified; with a number there instead, the result is unspecified. t6 is float32[2]
  // over t4, whose bytes the int64 add computed from a NaN's bits.
  MethodScenario chained = float_method(
      {kAddFloats, {ScenarioOp::Add, {3, 3, 4}, {0}}, {ScenarioOp::Mul, {0, 6, 1}, {}}});
  chained.tensors.push_back({ScalarType::Float, {2}, 0, 48});
  HostModel mixed(chained);
  mixed.set_input(0, bytes_of<float>({float_bits(0x7fc00005), 1.0f}));
  mixed.set_input(1, bytes_of<float>({std::nanf(""), 2.0f}));
  mixed.execute();
  EXPECT_EQ(mixed.buffer_states(0)[48], State::Unspecified);
  EXPECT_EQ(mixed.buffer_states(0)[16], State::Nan32);        // t1[0] = NaN * unspecified
  EXPECT_EQ(mixed.buffer_states(0)[20], State::Unspecified);  // t1[1] = 1 * unspecified
  // inf - inf also makes a NaN from exact operands.
  HostModel overflow(m);
  overflow.set_input(0, bytes_of<float>({INFINITY, 1.0f}));
  overflow.set_input(1, bytes_of<float>({-INFINITY, 0.0f}));
  overflow.execute();
  EXPECT_EQ(overflow.buffer_states(0)[32], State::Nan32);
  EXPECT_EQ(overflow.buffer_states(0)[36], State::Exact);
}

TEST(HostModelTest, AWriteOverPartOfANanLeavesTheRestUnspecified) {
  const MethodScenario m = float_method({kAddFloats});
  HostModel model(m);
  model.set_input(0, bytes_of<float>({std::nanf(""), std::nanf("")}));
  model.set_input(1, bytes_of<float>({1.0f, 2.0f}));
  model.execute();
  // t3 (int64 over t2's 8 bytes) written exactly: both NaN elements are gone.
  model.set_input(3, bytes_of<int64_t>({7}));
  for (size_t i = 32; i < 40; ++i) EXPECT_EQ(model.buffer_states(0)[i], State::Exact) << i;

  // A float64 NaN cut in half by a float32 write: its other half is unspecified.
  MethodScenario d = float_method({});
  d.tensors = {{ScalarType::Double, {1}, 0, 0},
               {ScalarType::Double, {1}, 0, 16},
               {ScalarType::Double, {1}, 0, 32},
               {ScalarType::Float, {1}, 0, 36}};
  d.instructions = {{ScenarioOp::Mul, {0, 1, 2}, {}}};
  HostModel doubles(d);
  doubles.set_input(0, bytes_of<double>({std::nan("")}));
  doubles.set_input(1, bytes_of<double>({2.0}));
  doubles.execute();
  EXPECT_EQ(doubles.buffer_states(0)[32], State::Nan64);
  doubles.set_input(3, bytes_of<float>({1.0f}));
  for (size_t i = 32; i < 36; ++i) EXPECT_EQ(doubles.buffer_states(0)[i], State::Unspecified);
  for (size_t i = 36; i < 40; ++i) EXPECT_EQ(doubles.buffer_states(0)[i], State::Exact);
}

TEST(HostModelTest, ACopyCarriesWhatTheModelKnows) {
  const MethodScenario m = float_method({kAddFloats, {ScenarioOp::CopyH2D, {2, 5}, {}}});
  HostModel model(m);
  model.set_input(0, bytes_of<float>({std::nanf(""), 1.0f}));
  model.set_input(1, bytes_of<float>({1.0f, 2.0f}));
  model.execute();
  EXPECT_EQ(model.buffer_states(1)[0], State::Nan32);
  EXPECT_EQ(model.buffer_states(1)[3], State::NanRest);
  EXPECT_EQ(model.buffer_states(1)[4], State::Exact);
  std::vector<uint8_t> device = model.buffer(1);
  EXPECT_EQ(model.buffer_difference(1, device), "");
  device[4] ^= 1;
  EXPECT_EQ(model.buffer_difference(1, device), "byte 4: 0x01 where the model has 0x00");
}

}  // namespace
}  // namespace devplan::testing
