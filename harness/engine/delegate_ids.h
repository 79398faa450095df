// The backend ids a program's delegates name, read straight from the flatbuffer (verified, not
// validated), so it works on programs that runtime_ext's reader rejects and ExecuTorch accepts.
// Kept apart from ExecuTorch's headers, which declare FlatBuffers types of another version.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace devplan::harness {

// Every delegate id of every method, in order, duplicates included; empty when `bytes` is not
// a readable program.
std::vector<std::string> delegate_ids(const std::vector<uint8_t>& bytes);

}  // namespace devplan::harness
