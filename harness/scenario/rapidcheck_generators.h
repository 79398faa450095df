// RapidCheck generators over the plain scenario structs of harness/scenario: they draw
// ProgramDrafts (seeded_generator.h) with rc::gen combinators and resolve them, so every
// generated ProgramScenario is valid and executable, and shrinking (which shrinks the draft's
// lists and numbers) leads to small, readable counterexamples such as
//
//   method forward: buffer 0 48 B cuda:2, buffer 1 0 B cpu:0
//     tensors: t0 float32[2] in buffer 0 at 16
//
//   RC_GTEST_PROP(Suite, Name, ()) {
//     const ProgramScenario s = *gen_program_scenario();   // printed on failure
//     ...
//   }
//
// rc::Arbitrary<ProgramScenario> is gen_program_scenario(property_scenario_options()).
#pragma once

#include <ostream>

#include <rapidcheck.h>

#include <harness/scenario/corruption.h>
#include <harness/scenario/model.h>
#include <harness/scenario/seeded_generator.h>

namespace devplan::testing {

// The options the properties use: the defaults of ScenarioOptions (1-4 methods, 0-32 buffers
// up to 1 MiB, cpu:0 and cuda:0..3, float32/int32/int64).
ScenarioOptions property_scenario_options();

rc::Gen<ScenarioBuffer> gen_buffer(const ScenarioOptions& options);
rc::Gen<MethodDraft> gen_method_draft(const ScenarioOptions& options);
rc::Gen<ProgramDraft> gen_program_draft(const ScenarioOptions& options);
rc::Gen<ProgramScenario> gen_program_scenario(
    const ScenarioOptions& options = property_scenario_options());

// A corruption that applies to `scenario` (its method has the buffer or tensor it targets), of
// a kind the reader refuses (`refused`) or of one it reads as ExecuTorch does.
rc::Gen<Corruption> gen_corruption(const ProgramScenario& scenario, bool refused);

}  // namespace devplan::testing

namespace devplan {

// How RapidCheck prints these in counterexamples (found by argument-dependent lookup).
void showValue(const ProgramScenario& scenario, std::ostream& os);
void showValue(const Corruption& corruption, std::ostream& os);

}  // namespace devplan

namespace rc {

template <>
struct Arbitrary<devplan::ProgramScenario> {
  static Gen<devplan::ProgramScenario> arbitrary() {
    return devplan::testing::gen_program_scenario(devplan::testing::property_scenario_options());
  }
};

}  // namespace rc
