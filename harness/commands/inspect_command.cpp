// devplan inspect FILE [--json]
#include <harness/cli/byte_size.h>
#include <harness/commands/command.h>
#include <harness/commands/command_options.h>
#include <harness/commands/program_summary.h>
#include <harness/report/json_reports.h>

namespace devplan::harness {
namespace {

void print_values(std::ostream& out, const char* label, const std::vector<ValueSummary>& values) {
  out << "  " << label << ":";
  if (values.empty()) out << " none";
  out << "\n";
  for (const ValueSummary& v : values) {
    out << "    value " << v.value_index << ": " << describe_value(v);
    if (v.tag == ValueTag::Tensor) out << ", " << v.storage;
    if (v.tag == ValueTag::Tensor && v.storage == "external") {
      out << " '" << v.fully_qualified_name << "' (data in a separate .ptd file, not planned)";
    }
    if (v.legacy_host) {
      out << " in host buffer " << v.buffer_index << " (legacy planning: host memory)";
    }
    out << "\n";
  }
}

void print_list(std::ostream& out, const char* label, const std::vector<std::string>& items) {
  out << "  " << label << ":";
  if (items.empty()) out << " none";
  for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : " ") << items[i];
  out << "\n";
}

void print_text(std::ostream& out, const std::string& file,
                const std::vector<MethodSummary>& methods) {
  out << "file: " << file << "\n";
  for (const MethodSummary& m : methods) {
    out << "method " << m.name << ": " << m.num_values << " values, " << m.num_instructions
        << " instructions, " << m.buffers.size() << " planned buffers\n";
    for (const BufferSummary& b : m.buffers) {
      out << "  buffer " << b.index << ": " << cli::format_bytes(b.size) << " on "
          << b.device.to_string() << ", " << b.planned_tensors << " planned tensors, max end "
          << cli::format_bytes(b.max_end) << "\n";
    }
    const std::map<Device, uint64_t> peak = peak_device_bytes(m);
    out << "  peak device bytes:" << (peak.empty() ? " none" : "");
    for (const auto& [device, bytes] : peak) {
      out << " " << device.to_string() << " " << cli::format_bytes(bytes);
    }
    out << "\n";
    print_list(out, "operators", m.operators);
    print_list(out, "delegates", m.delegates);
    print_values(out, "inputs", m.inputs);
    print_values(out, "outputs", m.outputs);
    if (!m.external.empty()) print_values(out, "external", m.external);
  }
}

}  // namespace

int inspect_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file;
  bool json = false;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "inspect", "Show a program's methods, planned buffers and their devices.");
  add_program_argument(*app, file);
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  Result<Program> program = load_program_file(file);
  Result<std::vector<MethodSummary>> methods =
      program.ok() ? summarize_program(*program)
                   : Result<std::vector<MethodSummary>>(program.error());
  if (!methods.ok()) {
    const Error error = methods.error().with_context(file);
    if (json) {
      out << error_json(error) << "\n";
    } else {
      err << "devplan inspect: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  if (json) {
    out << inspect_json(file, *methods) << "\n";
  } else {
    print_text(out, file, *methods);
  }
  return cli::kExitOk;
}

}  // namespace devplan::harness
