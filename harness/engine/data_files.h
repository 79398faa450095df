// The data files (.ptd) given with `--data`, mapped read-only and parsed (DataFile), as one set
// the engines read external tensors from.
//
//   Result<std::shared_ptr<const DataFiles>> data = map_data_files({"model.ptd"});
//   options.data_files = *data;   // SessionOptions: both engines get them
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/program/data_file.h>

namespace devplan::harness {

// nullptr for no paths. A file that cannot be read (AccessFailed naming it), is not a data file
// or is malformed (InvalidExternalData naming it), or a key in two files: an error.
Result<std::shared_ptr<const DataFiles>> map_data_files(const std::vector<std::string>& paths);

// The bytes of every entry's data (what the file holds for programs).
uint64_t data_bytes(const DataFile& file);
// "x.ptd: 2 tensors, 60 B (file 524 B)".
std::string data_file_summary(const DataFile& file);

}  // namespace devplan::harness
