#include "commands_test_support.h"

#include <fixtures/generator/fixture_programs.h>
#include <harness/output/json_document.h>
#include <runtime_ext/writer/program_builder.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace devplan::harness::testing {
namespace {

std::vector<std::string>& temp_files() {
  static std::vector<std::string> files;
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit([] {
      for (const std::string& f : temp_files()) std::remove(f.c_str());
    });
  }
  return files;
}

}  // namespace

std::vector<uint8_t> wasteful_device_add() {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodPlan plan = source.method(0).plan();
  plan.buffer_sizes[0] = 48;
  plan.values[5].tensor.offset = 32;
  ProgramBuilder builder;
  builder.add_method(plan);
  return builder.build();
}

CommandResult run(CommandFn command, const Args& args) {
  std::ostringstream out, err;
  CommandResult r;
  r.exit_code = command(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string real_program(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/" + name;
}

std::string exported_program(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter/" + name;
}

std::string fixture_program(const std::string& name) {
  return std::string(DEVPLAN_FIXTURE_PROGRAMS_DIR) + "/" + name + ".pte";
}

std::string temp_file(const std::vector<uint8_t>& bytes, const std::string& suffix) {
  char pattern[] = "/tmp/devplan_test_XXXXXX";
  const int fd = mkstemp(pattern);
  if (fd >= 0) close(fd);
  std::string path = std::string(pattern) + suffix;
  std::rename(pattern, path.c_str());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  temp_files().push_back(path);
  return path;
}

std::string temp_dir() {
  char pattern[] = "/tmp/devplan_test_dir_XXXXXX";
  const char* made = mkdtemp(pattern);
  const std::string path = made ? made : "";
  static std::vector<std::string> dirs;
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit([] {
      std::error_code ec;
      for (const std::string& d : dirs) std::filesystem::remove_all(d, ec);
    });
  }
  dirs.push_back(path);
  return path;
}

void copy_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(to).parent_path(), ec);
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string json_header() {
  return std::string(R"({"devplan_version":")") + devplan_version() + R"(","schema_version":1,)";
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  const std::string text = file_text(path);
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace devplan::harness::testing
