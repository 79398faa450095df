// A small hand-written scenario shared by the scenario tests: every op, every value kind, a
// device buffer and two CPU buffers (one empty), and a second method without buffers.
#pragma once

#include <harness/scenario/model.h>

namespace devplan::testing {

inline ScenarioValue make_value(ScenarioValueKind kind) {
  ScenarioValue v;
  v.kind = kind;
  return v;
}

inline ProgramScenario example_scenario() {
  ProgramScenario s;
  MethodScenario& m = s.methods.emplace_back();
  m.name = "forward";
  m.buffers = {{64, Device::cpu()}, {48, Device::cuda(2)}, {0, Device::cpu()}};
  m.tensors = {{ScalarType::Float, {2, 2}, 0, 0},
               {ScalarType::Float, {2, 2}, 1, 16},
               {ScalarType::Float, {2, 2}, 0, 16},
               {ScalarType::Float, {2, 2}, 1, 32}};
  ScenarioValue v0 = make_value(ScenarioValueKind::Int);
  v0.int_value = 1;
  ScenarioValue v1 = make_value(ScenarioValueKind::Int);
  v1.int_value = 2;
  ScenarioValue v2 = make_value(ScenarioValueKind::TensorList);
  v2.tensor_list = {0, 1};
  ScenarioValue v3 = make_value(ScenarioValueKind::Double);
  v3.double_value = 0.5;
  ScenarioValue v4 = make_value(ScenarioValueKind::Bool);
  v4.bool_value = true;
  ScenarioValue v5 = make_value(ScenarioValueKind::Null);
  ScenarioValue v6 = make_value(ScenarioValueKind::IntList);
  v6.int_list = {1, -2};
  ScenarioValue v7 = make_value(ScenarioValueKind::DoubleList);
  v7.double_list = {0.25};
  ScenarioValue v8 = make_value(ScenarioValueKind::BoolList);
  v8.bool_list = {true, false};
  m.values = {v0, v1, v2, v3, v4, v5, v6, v7, v8};
  m.instructions = {{ScenarioOp::Add, {0, 0, 2}, {0}},
                    {ScenarioOp::CopyH2D, {2, 1}, {}},
                    {ScenarioOp::DelegateAdd, {1, 1, 3}, {}},
                    {ScenarioOp::CopyD2H, {3, 0}, {}},
                    {ScenarioOp::Mul, {0, 2, 2}, {}},
                    {ScenarioOp::Move, {}, {0, 1}},
                    {ScenarioOp::Free, {3}, {}},
                    {ScenarioOp::Free, {}, {2}}};
  m.inputs = {0};
  m.outputs = {2};
  s.methods.emplace_back().name = "encode";
  return s;
}

}  // namespace devplan::testing
