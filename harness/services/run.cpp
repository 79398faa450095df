#include <harness/services/run.h>

#include <memory>

#include <harness/engine/data_files.h>
#include <harness/engine/program_image.h>

namespace devplan::harness {

Result<RunReport> run_program(const std::string& file, const std::string& method_name,
                              const std::vector<std::string>& inputs, bool* usage_error,
                              const DeviceSetup& device, RuntimeKind runtime,
                              const MemoryCeilings& ceilings,
                              const std::vector<std::string>& data_paths,
                              MissingCapability* missing) {
  *usage_error = false;
  if (missing != nullptr) *missing = MissingCapability();
  DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(file));
  return run_program_image(image, file, method_name, inputs, usage_error, device, runtime, ceilings,
                           data_paths, missing);
}

Result<RunReport> run_program_image(const ProgramImage& image, const std::string& file,
                                    const std::string& method_name,
                                    const std::vector<std::string>& inputs, bool* usage_error,
                                    const DeviceSetup& device, RuntimeKind runtime,
                                    const MemoryCeilings& ceilings,
                                    const std::vector<std::string>& data_paths,
                                    MissingCapability* missing) {
  *usage_error = false;
  if (missing != nullptr) *missing = MissingCapability();
  DEVPLAN_ASSIGN_OR_RETURN(std::unique_ptr<DeviceEnvironment> env,
                           DeviceEnvironment::create(device));
  env->tracking()->set_max_allocation_bytes(
      ceilings.device_allocation_limit(env->tracking()->backing()));
  SessionOptions session_options;
  session_options.max_host_bytes = ceilings.max_host_buffer_bytes;
  DEVPLAN_ASSIGN_OR_RETURN(session_options.data_files, map_data_files(data_paths));
  RunReport report;
  report.runtime = runtime;
  report.device_map = env->device_map().describe();
  {
    Result<std::unique_ptr<EngineSession>> session =
        open_session(runtime, image, *env, session_options);
    if (!session.ok()) return session.error().with_context(file);
    const std::vector<std::string>& names = (*session)->method_names();
    if (names.empty()) return Error(ErrorCode::NotFound, file + ": the program has no methods");
    report.method = method_name.empty() ? names[0] : method_name;
    bool known = false;
    for (const std::string& n : names) known |= n == report.method;
    if (!known) {
      *usage_error = true;
      return Error(ErrorCode::NotFound, "the program has no method '" + report.method + "'");
    }
    Result<std::vector<OutputValues>> outputs =
        (*session)->execute(report.method, inputs, usage_error);
    if (!outputs.ok()) {
      if (missing != nullptr) *missing = (*session)->missing_capability();
      return outputs.error();
    }
    report.outputs = std::move(outputs).value();
  }  // unload and destroy: every device allocation must be freed now
  report.leak_lines = env->leak_lines();
  report.misuse_lines = env->misuse_lines();
  return report;
}

}  // namespace devplan::harness
