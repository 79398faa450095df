// Text shared by the messages of the allocators in mocks/ (pointers are written with
// pointer_text from runtime_ext/core/text_join.h).
#pragma once

#include <cstddef>
#include <string>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/core/text_join.h>  // pointer_text

namespace devplan {

// "48 bytes on cuda:0": an allocate() request as allocation errors name it.
std::string bytes_on_device(size_t nbytes, const Device& device);

// InvalidArgument "<name>::<method>: device cuda:-1 has a negative index".
Error negative_index_error(const std::string& name, const char* method, const Device& device);

}  // namespace devplan
