// Opening a program file for reading, the way every file loader does it: the path must name a
// regular file. Directories, FIFOs (refused without waiting for a writer) and devices are
// errors that name the path and the reason.
//
//   Result<RegularFile> f = open_regular_file("model.pte");
//   // AccessFailed: "cannot open 'model.pte': No such file or directory"
//   //               "cannot read 'models': Is a directory"
//   //               "cannot read 'pipe': not a regular file (a FIFO)"
#pragma once

#include <cstddef>
#include <string>

#include <runtime_ext/core/result.h>

namespace devplan {

struct RegularFile {
  int fd = -1;      // open for reading, close-on-exec; the caller closes it
  size_t size = 0;  // bytes when opened
};

Result<RegularFile> open_regular_file(const std::string& path);

// The system's text for `err` ("No such file or directory").
std::string errno_text(int err);

}  // namespace devplan
