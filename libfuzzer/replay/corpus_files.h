// Reading the committed fuzz corpora (fixtures/corpus/) in the replay tests.
//
//   for (const fs::path& file : corpus_files(corpus_dir() / "program_load")) read_bytes(file);
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include <runtime_ext/program/file_data_loader.h>

namespace devplan::fuzz {

// fixtures/corpus of the source tree this test was built from.
inline std::filesystem::path corpus_dir() { return DEVPLAN_CORPUS_DIR; }

// Every regular file under `dir` (recursively), sorted; none when `dir` does not exist.
inline std::vector<std::filesystem::path> corpus_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The bytes of `path` (the runtime's read_file; a file that cannot be read aborts the test with
// the reason).
inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  return read_file(path.string()).value();
}

}  // namespace devplan::fuzz
