// devplan inspect FILE [--data FILE.ptd]... [--json]
// FILE may be a data file (.ptd): its tensors and segments are listed.
#include <harness/commands/inspect_command.h>
#include <harness/engine/data_files.h>
#include <harness/engine/program_image.h>
#include <harness/options/byte_size.h>
#include <harness/options/command_options.h>
#include <harness/output/json_reports.h>
#include <harness/services/program_summary.h>

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
      out << " '" << v.fully_qualified_name << "' ";
      out << (v.external_data.empty() ? "(data in a separate .ptd file, not planned)"
                                      : v.external_data);
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
    for (const std::string& note : m.notes) out << "  note: " << note << "\n";
  }
}

// "data file: x.ptd (FlatTensor version 0, 524 bytes)", its segments and tensors.
void print_data_file(std::ostream& out, const DataFile& f) {
  out << "data file: " << f.name() << " (FlatTensor version " << f.version() << ", "
      << cli::format_bytes(f.file_size()) << ")\n";
  out << "segments: " << f.segments().size() << ", " << cli::format_bytes(f.segment_data_size())
      << " from offset " << f.segment_base_offset() << "\n";
  for (size_t i = 0; i < f.segments().size(); ++i) {
    out << "  segment " << i << ": offset " << f.segments()[i].offset << ", "
        << cli::format_bytes(f.segments()[i].size) << "\n";
  }
  out << "tensors: " << f.entries().size() << "\n";
  for (const DataEntry& e : f.entries()) {
    out << "  '" << e.key << "': ";
    if (e.has_layout) {
      out << scalar_type_name(e.dtype) << "[";
      for (size_t i = 0; i < e.sizes.size(); ++i) out << (i ? ", " : "") << e.sizes[i];
      out << "]";
    } else {
      out << "data (no tensor layout)";
    }
    out << ", " << cli::format_bytes(f.data(e).size()) << ", segment " << e.segment << " at "
        << f.segments()[e.segment].offset << ", aligned to " << f.alignment(e) << "\n";
  }
}

// Whether the file at `path` carries the FlatTensor identifier (false when it cannot be read:
// the program path then reports the error).
bool looks_like_data_file(const std::string& path) {
  Result<ProgramImage> image = ProgramImage::map(path);
  return image.ok() && is_data_file(image->file_bytes());
}

}  // namespace

int inspect_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file;
  std::vector<std::string> data;
  bool json = false;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "inspect",
      "Show a program's methods, planned buffers and their devices, or a data file's tensors.");
  add_program_argument(*app, file);
  add_data_option(*app, data);
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  auto fail = [&](const Error& error) {
    if (json) {
      out << error_json(error) << "\n";
    } else {
      err << "devplan inspect: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  };
  if (looks_like_data_file(file)) {
    if (!data.empty()) {
      return cli::usage_error(*app,
                              file +
                                  " is a data file (.ptd), not a program: --data goes "
                                  "with a program",
                              err);
    }
    Result<std::shared_ptr<const DataFiles>> files = map_data_files({file});
    if (!files.ok()) return fail(files.error());
    const DataFile& f = (*files)->files()[0].file;
    if (json) {
      out << data_file_json(f) << "\n";
    } else {
      print_data_file(out, f);
    }
    return cli::kExitOk;
  }
  Result<std::shared_ptr<const DataFiles>> files = map_data_files(data);
  if (!files.ok()) return fail(files.error());
  Result<Program> program = load_program_file(file);
  Result<std::vector<MethodSummary>> methods =
      program.ok() ? summarize_program(*program, files->get())
                   : Result<std::vector<MethodSummary>>(program.error());
  if (!methods.ok()) return fail(methods.error().with_context(file));
  if (json) {
    out << inspect_json(file, *methods) << "\n";
  } else {
    print_text(out, file, *methods);
  }
  return cli::kExitOk;
}

}  // namespace devplan::harness
