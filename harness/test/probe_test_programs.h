// Small programs the probe tests plant bugs in (ProgramBuilder, runtime_ext/writer).
#pragma once

#include <cstdint>
#include <vector>

namespace devplan::harness::testing {

// Host only: out[2, 3] = a[2, 3] + b[3] (aten::add.out, b broadcast over the rows); buffer 0
// of 96 bytes: a at 0, b at 32, out at 64. Values: 0 a, 1 b, 2 out, 3 alpha.
std::vector<uint8_t> broadcast_add_program();

// Two device delegates (DevplanDeviceBackend) whose results are two method outputs:
// out0 = a + b and out1 = a * b, float32[2, 2]. Buffer 0 (cpu:0, 64 bytes): a 0, b 16,
// out0 32, out1 48; buffer 1 (cuda:0, 64 bytes): a_dev 0, b_dev 16, sum_dev 32, product_dev 48.
// No two tensors share bytes. Values: 0 a, 1 b, 2 a_dev, 3 b_dev, 4 sum_dev, 5 product_dev,
// 6 out0, 7 out1.
std::vector<uint8_t> two_device_outputs_program();

// Two float32[1] tensors with initial values at the same bytes of buffer 0 (8 bytes): value 0
// (1.5, the method's output) and value 1 (-4.5, named by no instruction, loaded after it). No
// instructions. `check` gives value 1 no lifetime, so it sees no overlap.
std::vector<uint8_t> colliding_initial_values_program();

}  // namespace devplan::harness::testing
