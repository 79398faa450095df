// devplan probe finds nothing in what is correct: every generated valid program, probed in both
// engines (ExecuTorch's where devplan is built with it), has no finding but the outputs it
// never writes, and no error but ExecuTorch's known refusal of device-planned inputs.
#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <harness/engine/engine.h>
#include <harness/scenario/rapidcheck_generators.h>
#include <harness/scenario/writer.h>
#include <harness/services/probe.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>

#include "property.h"

namespace devplan::testing {
namespace {

// Every line of `r` that is not "clean", for the failure message.
std::string findings_text(const harness::ProbeReport& r) {
  std::string text;
  for (const harness::MethodProbe& m : r.methods) {
    if (!m.probed) text += "method " + m.name + " not probed: " + m.not_probed + "\n";
    for (const harness::ProbeFinding& f : m.findings) text += f.line() + "\n";
  }
  for (const std::string& l : r.leak_lines) text += "LEAK " + l + "\n";
  for (const std::string& l : r.misuse_lines) text += "MISUSE " + l + "\n";
  return text;
}

// Whether method `name` has an input planned in device memory, which ExecuTorch's set_input
// refuses to fill from the host (the known divergence "device-planned-input").
bool has_device_planned_input(const harness::ProgramImage& image, const std::string& name) {
  Result<Program> program = image.program();
  if (!program.ok()) return false;
  Result<const MethodPlan*> plan = program->method_plan(name);
  if (!plan.ok()) return false;
  for (int32_t v : (*plan)->inputs) {
    const ValueInfo& value = (*plan)->values[v];
    if (value.tag == ValueTag::Tensor && value.tensor.is_planned() &&
        !(*plan)->buffer_devices[value.tensor.buffer_index].is_cpu()) {
      return true;
    }
  }
  return false;
}

// "method forward: output 2 " for each output of each method that no instruction names and
// nothing else gives a value (not an input, no initial value, not a view of a tensor that has
// one): the generator makes such programs, and their outputs are never written, which probe
// reports.
std::vector<std::string> outputs_nothing_writes(const harness::ProgramImage& image) {
  std::vector<std::string> out;
  Result<Program> program = image.program();
  if (!program.ok()) return out;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    const MethodPlan& plan = **program->method_plan_at(m);
    const MethodCheck check = check_method_plan(plan);
    for (size_t i = 0; i < plan.outputs.size(); ++i) {
      const int32_t v = plan.outputs[i];
      const ValueInfo& value = plan.values[v];
      bool named = std::find(plan.inputs.begin(), plan.inputs.end(), v) != plan.inputs.end();
      for (const ChainInfo& chain : plan.chains) {
        for (const InstructionInfo& instruction : chain.instructions) {
          named = named || std::find(instruction.args.begin(), instruction.args.end(), v) !=
                               instruction.args.end();
        }
      }
      // A view (devplan's reading) holds its base's bytes.
      if (named || check.alias_of[v] >= 0 || value.tag != ValueTag::Tensor ||
          !value.tensor.is_planned() || value.tensor.nbytes == 0 ||
          value.tensor.storage == TensorStorage::PlannedWithInitial) {
        continue;
      }
      out.push_back("method " + plan.name + ": output " + std::to_string(i) + " ");
    }
  }
  return out;
}

// Whether every instruction of `plan` reads only values written before it (an input, an initial
// value, memory that is not planned, a view of a written tensor, an earlier instruction's out),
// in order. A delegate's last argument is its out, a kernel's last two (the out argument and
// the one returned).
bool reads_only_written(const MethodPlan& plan, const MethodCheck& check) {
  std::vector<bool> written(plan.values.size(), false);
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    written[v] = value.tag != ValueTag::Tensor || !value.tensor.is_planned() ||
                 value.tensor.storage == TensorStorage::PlannedWithInitial;
  }
  for (int32_t v : plan.inputs) written[v] = true;
  const auto is_written = [&](int32_t v) {
    return written[v] || (check.alias_of[v] >= 0 && written[check.alias_of[v]]);
  };
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& instruction : chain.instructions) {
      const std::vector<int32_t>& args = instruction.args;
      if (args.empty()) continue;
      size_t reads = args.size() - 1;
      if (instruction.kind == InstructionKind::KernelCall && reads > 0 &&
          args[reads - 1] == args.back()) {
        --reads;  // the out argument and the returned one
      }
      for (size_t i = 0; i < reads; ++i) {
        if (!is_written(args[i])) return false;
      }
      written[args.back()] = true;
    }
  }
  return true;
}

// Whether two tensors with initial values share bytes (the load writes one over the other;
// `check` gives a never-named tensor no lifetime, so it does not see this).
bool initial_values_collide(const MethodPlan& plan) {
  for (size_t a = 0; a < plan.values.size(); ++a) {
    for (size_t b = a + 1; b < plan.values.size(); ++b) {
      const TensorInfo& x = plan.values[a].tensor;
      const TensorInfo& y = plan.values[b].tensor;
      if (plan.values[a].tag == ValueTag::Tensor && plan.values[b].tag == ValueTag::Tensor &&
          x.storage == TensorStorage::PlannedWithInitial &&
          y.storage == TensorStorage::PlannedWithInitial && x.buffer_index == y.buffer_index &&
          x.offset < y.offset + y.nbytes && y.offset < x.offset + x.nbytes) {
        return true;
      }
    }
  }
  return false;
}

DEVPLAN_PROP(Probe, AGeneratedValidProgramHasNoFindingInEitherEngine, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const harness::ProgramImage image(build_program(s));
  // Valid: `check` finds no tensors sharing bytes while live, no instruction reads what nothing
  // wrote, and no two initial values share bytes (the generator also makes programs that do
  // each, and probe reports them).
  Result<Program> program = image.program();
  RC_ASSERT(program.ok());
  for (size_t m = 0; m < program->num_methods(); ++m) {
    const MethodPlan& plan = **program->method_plan_at(m);
    const MethodCheck check = check_method_plan(plan);
    RC_PRE(check.overlaps.empty() && reads_only_written(plan, check) &&
           !initial_values_collide(plan));
  }
  std::vector<harness::RuntimeKind> engines = {harness::RuntimeKind::Devplan};
  if (harness::executorch_available()) engines.push_back(harness::RuntimeKind::Executorch);
  for (harness::RuntimeKind engine : engines) {
    harness::ProbeOptions options;
    options.runtime = engine;
    bool usage_error = false;
    const Result<harness::ProbeReport> r = harness::probe_program(image, options, &usage_error);
    RC_ASSERT(r.ok());
    RC_LOG() << harness::runtime_name(engine) << ":\n" << findings_text(*r);
    RC_ASSERT(r->leak_lines.empty());
    RC_ASSERT(r->misuse_lines.empty());
    std::vector<std::string> unwritten = outputs_nothing_writes(image);
    for (const harness::MethodProbe& m : r->methods) {
      std::vector<std::string> expected;
      for (const std::string& u : unwritten) {
        if (m.probed && u.rfind("method " + m.name + ": ", 0) == 0) expected.push_back(u);
      }
      RC_ASSERT(m.findings.size() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        RC_ASSERT(m.findings[i].kind == std::string("UNWRITTEN"));
        RC_ASSERT(m.findings[i].text.rfind(expected[i], 0) == 0u);
        RC_ASSERT(m.findings[i].text.find("(no instruction writes it)") != std::string::npos);
      }
    }
    RC_ASSERT(r->methods.size() == s.methods.size());
    for (const harness::MethodProbe& m : r->methods) {
      if (engine == harness::RuntimeKind::Executorch && has_device_planned_input(image, m.name) &&
          !m.probed) {
        RC_ASSERT(m.not_probed.find("Planned-buffer copy needs host memory on both sides") !=
                  std::string::npos);
        continue;
      }
      RC_ASSERT(m.probed);
    }
  }
}

}  // namespace
}  // namespace devplan::testing
