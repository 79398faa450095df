#include <harness/services/check.h>

#include <harness/engine/data_files.h>
#include <harness/engine/program_image.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {

Result<std::vector<std::vector<BufferOptimum>>> buffer_optimums(const std::string& file,
                                                                int64_t budget_steps) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  std::vector<std::vector<BufferOptimum>> out;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    const MethodCheck check = check_method_plan(*plan);
    std::vector<BufferOptimum> buffers;
    for (size_t b = 0; b < check.buffers.size(); ++b) {
      DEVPLAN_ASSIGN_OR_RETURN(BufferOptimum o, buffer_optimum(*plan, check, b, budget_steps));
      buffers.push_back(o);
    }
    out.push_back(std::move(buffers));
  }
  return out;
}

Result<std::vector<MethodCheck>> check_program_file(const std::string& file) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  return check_program(program);
}

Result<std::vector<MethodCheck>> check_program(const Program& program) {
  std::vector<MethodCheck> checks;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    checks.push_back(check_method_plan(*plan));
  }
  return checks;
}

Result<CheckedData> checked_data(const std::string& file, const std::vector<std::string>& paths) {
  CheckedData data;
  if (paths.empty()) return data;
  DEVPLAN_ASSIGN_OR_RETURN(std::shared_ptr<const DataFiles> files, map_data_files(paths));
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  DEVPLAN_ASSIGN_OR_RETURN(data.methods, summarize_program(program, files.get()));
  data.files = std::move(files);
  return data;
}

Result<ProbeReport> probe_overlaps(const std::string& file, const std::vector<std::string>& data,
                                   RuntimeKind runtime) {
  DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(file));
  ProbeOptions options;
  options.data = data;
  options.runtime = runtime;
  options.confirm_overlaps = true;
  bool usage_error = false;
  return probe_program(image, options, &usage_error);
}

}  // namespace devplan::harness
