// devplan run FILE [--method NAME] [--input VALUES]... [--json]
#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/commands/device_environment.h>
#include <harness/commands/run_report.h>
#include <harness/commands/tensor_values.h>
#include <harness/report/json_reports.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan run FILE [--method NAME] [--input VALUES]... [--device simulated|cuda] [--json]\n"
    "  --input is given once per method input, in order: comma-separated numbers in row-major\n"
    "  order, or one number that fills the whole tensor; inputs not given are ones.";

const cli::ArgSpec kSpec = {
    {"device", cli::OptionKind::Single},
    {"method", cli::OptionKind::Single},
    {"input", cli::OptionKind::Repeated},
    {"json", cli::OptionKind::Flag},
};

// Sets every input of `method`: the given values, or ones.
Error set_inputs(Method& method, const std::vector<std::string>& given, bool* usage_error) {
  if (given.size() > method.num_inputs()) {
    *usage_error = true;
    return Error(ErrorCode::InvalidArgument,
                 std::to_string(given.size()) + " --input given but method '" + method.name() +
                     "' has " + std::to_string(method.num_inputs()) + " inputs");
  }
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    std::vector<double> values{1.0};
    if (i < given.size()) {
      Result<std::vector<double>> parsed = parse_number_list(given[i]);
      if (!parsed.ok()) {
        *usage_error = true;
        return parsed.error().with_context("--input " + std::to_string(i));
      }
      values = *parsed;
    }
    const EValue& target = method.value(method.plan().inputs[i]);
    EValue input;
    std::vector<uint8_t> bytes;
    if (target.is_tensor()) {
      Result<std::vector<uint8_t>> encoded =
          encode_values(values, target.tensor.dtype, target.tensor.numel());
      if (!encoded.ok()) {
        *usage_error = encoded.code() == ErrorCode::InvalidArgument;
        return encoded.error().with_context("input " + std::to_string(i) + " (" +
                                            target.tensor.describe() + ")");
      }
      bytes = std::move(encoded).value();
      Tensor t = target.tensor;
      t.device = Device::cpu();
      t.data = bytes.data();
      input = EValue::from_tensor(t);
    } else if (target.is_int()) {
      input = EValue::from_int(static_cast<int64_t>(values[0]));
    } else if (target.is_double()) {
      input = EValue::from_double(values[0]);
    } else if (target.is_bool()) {
      input = EValue::from_bool(values[0] != 0);
    } else {
      if (i < given.size()) {
        *usage_error = true;
        return Error(ErrorCode::InvalidArgument,
                     "input " + std::to_string(i) + " is " + value_tag_name(target.tag) +
                         " and cannot be given as numbers");
      }
      continue;
    }
    DEVPLAN_RETURN_IF_ERROR(method.set_input(i, input));
  }
  return Error::success();
}

// Copies output `i` to the host and formats its values.
Result<OutputValues> read_output(const Method& method, size_t i) {
  DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, method.get_output(i));
  OutputValues result;
  result.index = i;
  result.tag = out->tag;
  if (out->is_tensor()) {
    result.dtype = out->tensor.dtype;
    result.sizes = out->tensor.sizes;
    result.device = out->tensor.device;
    std::vector<uint8_t> bytes(out->tensor.nbytes);
    DEVPLAN_RETURN_IF_ERROR(method.copy_output_to_host(i, bytes.data(), bytes.size()));
    DEVPLAN_ASSIGN_OR_RETURN(result.values, decode_values(bytes, out->tensor.dtype));
  } else if (out->is_int()) {
    result.values = {std::to_string(out->int_value)};
  } else if (out->is_double()) {
    result.values = {format_number(out->double_value)};
  } else if (out->is_bool()) {
    result.values = {out->bool_value ? "true" : "false"};
  }
  return result;
}

std::string describe_output(const OutputValues& o) {
  std::string text = "output " + std::to_string(o.index) + ": ";
  if (o.tag == ValueTag::Tensor) {
    text += scalar_type_name(o.dtype) + "[";
    for (size_t i = 0; i < o.sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(o.sizes[i]);
    text += "] on " + o.device.to_string() + " = [";
  } else {
    text += std::string(value_tag_name(o.tag)) + " = [";
  }
  for (size_t i = 0; i < o.values.size(); ++i) text += (i ? ", " : "") + o.values[i];
  return text + "]";
}

}  // namespace

Result<RunReport> run_program(const std::string& file, const std::string& method_name,
                              const std::vector<std::string>& inputs, bool* usage_error,
                              DeviceKind device) {
  *usage_error = false;
  DEVPLAN_ASSIGN_OR_RETURN(std::unique_ptr<DeviceEnvironment> env, DeviceEnvironment::create(device));
  RunReport report;
  {
    Module module(file, env->module_options());
    Result<std::vector<std::string>> names = module.method_names();
    if (!names.ok()) return names.error().with_context(file);
    if (names->empty()) return Error(ErrorCode::NotFound, file + ": the program has no methods");
    report.method = method_name.empty() ? (*names)[0] : method_name;
    bool known = false;
    for (const std::string& n : *names) known |= n == report.method;
    if (!known) {
      *usage_error = true;
      return Error(ErrorCode::NotFound, "the program has no method '" + report.method + "'");
    }
    DEVPLAN_RETURN_IF_ERROR(module.load_method(report.method));
    Method* method = *module.method(report.method);
    DEVPLAN_RETURN_IF_ERROR(set_inputs(*method, inputs, usage_error));
    DEVPLAN_RETURN_IF_ERROR(method->execute());
    for (size_t i = 0; i < method->num_outputs(); ++i) {
      DEVPLAN_ASSIGN_OR_RETURN(OutputValues o, read_output(*method, i));
      report.outputs.push_back(std::move(o));
    }
  }  // unload and destroy: every device allocation must be freed now
  report.leak_lines = env->leak_lines();
  report.misuse_lines = env->misuse_lines();
  return report;
}

int run_command(const Args& args, std::ostream& out, std::ostream& err) {
  Result<cli::ParsedArgs> parsed = cli::parse_args(kSpec, args);
  if (!parsed.ok() || parsed->positionals.size() != 1) {
    err << "devplan run: " << (parsed.ok() ? "expected exactly one FILE" : parsed.error().message())
        << "\n" << kUsage << "\n";
    return cli::kExitUsage;
  }
  const bool json = parsed->has("json");
  Result<DeviceKind> device = parse_device_kind(parsed->value("device", "simulated"));
  if (!device.ok()) {
    err << "devplan run: " << device.error().message() << "\n" << kUsage << "\n";
    return cli::kExitUsage;
  }
  bool usage_error = false;
  Result<RunReport> report = run_program(parsed->positionals[0], parsed->value("method"),
                                         parsed->values("input"), &usage_error, *device);
  if (!report.ok()) {
    if (usage_error) {
      err << "devplan run: " << report.error().message() << "\n" << kUsage << "\n";
      return cli::kExitUsage;
    }
    if (json) {
      out << error_json(report.error()) << "\n";
    } else {
      err << "devplan run: " << report.error().to_string() << "\n";
    }
    return cli::kExitError;
  }
  const bool findings = !report->leak_lines.empty() || !report->misuse_lines.empty();
  if (json) {
    out << run_json(*report) << "\n";
  } else {
    out << "method " << report->method << ": " << report->outputs.size() << " outputs\n";
    for (const OutputValues& o : report->outputs) out << describe_output(o) << "\n";
    for (const std::string& line : report->leak_lines) out << "LEAK " << line << "\n";
    for (const std::string& line : report->misuse_lines) out << "MISUSE " << line << "\n";
  }
  return findings ? cli::kExitFinding : cli::kExitOk;
}

}  // namespace devplan::harness
