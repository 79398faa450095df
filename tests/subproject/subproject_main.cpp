// A parent project's program that uses devplan built as its subproject (tests/subproject).
#include <cstdio>
#include <string_view>

#include <runtime_ext/core/device.h>

int main() {
  // std::string_view: C++17, although this project sets CMAKE_CXX_STANDARD 14; devplan::core's
  // cxx_std_17 usage requirement raises it.
  const std::string_view expected = "cuda:1";
  const std::string text = devplan::Device(devplan::DeviceType::CUDA, 1).to_string();
  if (text != expected) {
    std::fprintf(stderr, "subproject_main: Device{CUDA, 1} is '%s', not 'cuda:1'\n", text.c_str());
    return 1;
  }
  std::printf("subproject_main: %s\n", text.c_str());
  return 0;
}
