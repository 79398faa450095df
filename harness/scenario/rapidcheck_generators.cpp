#include <harness/scenario/rapidcheck_generators.h>

#include <algorithm>

namespace devplan::testing {
namespace {

// Vectors of at most `max` elements; the elements see the full size.
template <typename T>
rc::Gen<std::vector<T>> bounded_vector(size_t max, rc::Gen<T> element) {
  return rc::gen::withSize([=](int size) {
    return rc::gen::resize(std::min(size, static_cast<int>(max)),
                           rc::gen::container<std::vector<T>>(rc::gen::resize(size, element)));
  });
}

rc::Gen<uint32_t> gen_choice() { return rc::gen::arbitrary<uint32_t>(); }

rc::Gen<uint64_t> gen_buffer_size(uint64_t max) {
  const uint64_t tiny = std::min<uint64_t>(max, 64);
  const uint64_t small = std::min<uint64_t>(max, 4096);
  const uint64_t mid = std::min<uint64_t>(max, 65536);
  return rc::gen::weightedOneOf<uint64_t>({
      {2, rc::gen::just<uint64_t>(0)},                                 // zero
      {5, rc::gen::inRange<uint64_t>(1, tiny + 1)},                    // tiny
      {5, rc::gen::inRange<uint64_t>(1, small + 1)},                   // unaligned
      {6, rc::gen::map(rc::gen::inRange<uint64_t>(1, small / 16 + 1),  // aligned
                       [](uint64_t k) { return 16 * k; })},
      {1, rc::gen::inRange<uint64_t>(small, mid + 1)},
      {1, rc::gen::inRange<uint64_t>(mid, max + 1)},  // large (up to max)
  });
}

rc::Gen<TensorTypeDraft> gen_type(const ScenarioOptions& o) {
  return rc::gen::build<TensorTypeDraft>(
      rc::gen::set(&TensorTypeDraft::dtype, rc::gen::elementOf(o.dtypes)),
      rc::gen::set(
          &TensorTypeDraft::shape,
          bounded_vector(o.max_rank,
                         rc::gen::weightedOneOf<int32_t>(
                             {{12, rc::gen::inRange<int32_t>(1, std::max(o.max_dim, 1) + 1)},
                              {1, rc::gen::just<int32_t>(0)}}))));
}

rc::Gen<TensorDraft> gen_tensor() {
  return rc::gen::build<TensorDraft>(
      rc::gen::set(&TensorDraft::type, rc::gen::inRange<uint32_t>(0, 3)),
      rc::gen::set(&TensorDraft::buffer, gen_choice()),
      rc::gen::set(&TensorDraft::offset, rc::gen::inRange<uint64_t>(0, uint64_t{1} << 20)),
      rc::gen::set(&TensorDraft::initial, rc::gen::weightedElement<bool>({{3, false}, {1, true}})));
}

rc::Gen<ScenarioValue> gen_value() {
  using K = ScenarioValueKind;
  const rc::Gen<K> kind = rc::gen::weightedElement<K>({{3, K::Int},
                                                       {2, K::Double},
                                                       {1, K::Null},
                                                       {1, K::Bool},
                                                       {1, K::IntList},
                                                       {1, K::DoubleList},
                                                       {1, K::BoolList},
                                                       {1, K::TensorList}});
  return rc::gen::mapcat(kind, [](K k) -> rc::Gen<ScenarioValue> {
    auto with = [k](auto gen, auto setter) {
      return rc::gen::map(gen, [k, setter](const auto& x) {
        ScenarioValue v;
        v.kind = k;
        setter(v, x);
        return v;
      });
    };
    switch (k) {
      case K::Int:
        // Bounded: the add kernel turns alpha into a double and back into an int64, which is
        // undefined beyond 2^63 (values here stay exact in a double).
        return with(rc::gen::weightedOneOf<int64_t>(
                        {{4, rc::gen::inRange<int64_t>(0, 5)},
                         {1, rc::gen::inRange<int64_t>(-4, 0)},
                         {1, rc::gen::inRange<int64_t>(-(int64_t{1} << 40), int64_t{1} << 40)}}),
                    [](ScenarioValue& v, int64_t x) { v.int_value = x; });
      case K::Double:
        return with(
            rc::gen::map(rc::gen::inRange<int32_t>(-32, 33), [](int32_t x) { return x / 4.0; }),
            [](ScenarioValue& v, double x) { v.double_value = x; });
      case K::Bool:
        return with(rc::gen::arbitrary<bool>(), [](ScenarioValue& v, bool x) { v.bool_value = x; });
      case K::IntList:
        return with(bounded_vector(4, rc::gen::arbitrary<int64_t>()),
                    [](ScenarioValue& v, const std::vector<int64_t>& x) { v.int_list = x; });
      case K::DoubleList:
        return with(bounded_vector(4, rc::gen::map(rc::gen::inRange<int32_t>(0, 1000),
                                                   [](int32_t x) { return x / 8.0; })),
                    [](ScenarioValue& v, const std::vector<double>& x) { v.double_list = x; });
      case K::BoolList:
        return with(bounded_vector(4, rc::gen::arbitrary<bool>()),
                    [](ScenarioValue& v, const std::vector<bool>& x) { v.bool_list = x; });
      case K::TensorList:
        return with(bounded_vector(4, rc::gen::inRange<int32_t>(0, 64)),
                    [](ScenarioValue& v, const std::vector<int32_t>& x) { v.tensor_list = x; });
      case K::Null:
        break;
    }
    ScenarioValue v;
    v.kind = K::Null;
    return rc::gen::just(v);
  });
}

rc::Gen<InstructionDraft> gen_instruction(const ScenarioOptions& o) {
  using Op = ScenarioOp;
  static const std::vector<std::pair<int, Op>> kWeights = {
      {3, Op::Add},         {2, Op::Mul},  {3, Op::CopyH2D}, {3, Op::CopyD2H},
      {3, Op::DelegateAdd}, {1, Op::Move}, {1, Op::Free}};
  std::vector<std::pair<int, Op>> weights;
  for (const auto& w : kWeights) {
    if (std::find(o.ops.begin(), o.ops.end(), w.second) != o.ops.end()) weights.push_back(w);
  }
  if (weights.empty()) weights.push_back({1, Op::Add});  // no instruction kind: never drawn
  int total = 0;
  for (const auto& w : weights) total += w.first;
  // Full size: inRange scales with the size, which would make early cases all Add.
  const rc::Gen<Op> op =
      rc::gen::map(rc::gen::resize(100, rc::gen::inRange(0, total)), [weights](int x) {
        for (const auto& w : weights) {
          if (x < w.first) return w.second;
          x -= w.first;
        }
        return weights.back().second;
      });
  return rc::gen::build<InstructionDraft>(
      rc::gen::set(&InstructionDraft::op, op),
      rc::gen::set(&InstructionDraft::choices,
                   rc::gen::container<std::array<uint32_t, 4>>(rc::gen::inRange<uint32_t>(0, 64))));
}

}  // namespace

ScenarioOptions property_scenario_options() { return ScenarioOptions(); }

rc::Gen<ScenarioBuffer> gen_buffer(const ScenarioOptions& o) {
  return rc::gen::build<ScenarioBuffer>(
      rc::gen::set(&ScenarioBuffer::size, gen_buffer_size(o.max_buffer_bytes)),
      rc::gen::set(&ScenarioBuffer::device, rc::gen::elementOf(o.devices)));
}

rc::Gen<MethodDraft> gen_method_draft(const ScenarioOptions& o) {
  return rc::gen::build<MethodDraft>(
      rc::gen::set(&MethodDraft::buffers, bounded_vector(o.max_buffers, gen_buffer(o))),
      rc::gen::set(
          &MethodDraft::types,
          rc::gen::map(bounded_vector(std::max<size_t>(o.max_tensor_types, 1), gen_type(o)),
                       [](std::vector<TensorTypeDraft> types) {
                         if (types.empty()) types.push_back({ScalarType::Float, {}});
                         return types;
                       })),
      rc::gen::set(&MethodDraft::tensors, bounded_vector(o.max_tensors, gen_tensor())),
      rc::gen::set(&MethodDraft::values, bounded_vector(o.max_values, gen_value())),
      rc::gen::set(&MethodDraft::instructions,
                   bounded_vector(o.ops.empty() ? 0 : o.max_instructions, gen_instruction(o))),
      rc::gen::set(&MethodDraft::inputs,
                   bounded_vector(o.max_inputs, rc::gen::inRange<uint32_t>(0, 64))),
      rc::gen::set(&MethodDraft::outputs,
                   bounded_vector(o.max_outputs, rc::gen::inRange<uint32_t>(0, 64))));
}

rc::Gen<ProgramDraft> gen_program_draft(const ScenarioOptions& o) {
  const size_t lo = std::max<size_t>(o.min_methods, 1);
  const size_t hi = std::max(o.max_methods, lo);
  return rc::gen::build<ProgramDraft>(rc::gen::set(
      &ProgramDraft::methods, rc::gen::mapcat(rc::gen::inRange<size_t>(lo, hi + 1), [o](size_t n) {
        return rc::gen::container<std::vector<MethodDraft>>(n, gen_method_draft(o));
      })));
}

rc::Gen<ProgramScenario> gen_program_scenario(const ScenarioOptions& o) {
  return rc::gen::map(gen_program_draft(o),
                      [](const ProgramDraft& d) { return resolve_program_draft(d); });
}

rc::Gen<Corruption> gen_corruption(const ProgramScenario& scenario, bool refused) {
  std::vector<Corruption> applicable;
  const uint32_t num_methods = static_cast<uint32_t>(scenario.methods.size());
  for (CorruptionKind kind : all_corruption_kinds()) {
    if (corruption_is_refused(kind) != refused) continue;
    for (uint32_t m = 0; m < num_methods; ++m) {
      if (corruption_applies(scenario, {kind, m, 0, 0})) applicable.push_back({kind, m, 0, 0});
    }
  }
  // Every method accepts the buffer_idx kinds (read leniently) and a generated method has a
  // buffer (refused kinds), so `applicable` is never empty.
  return rc::gen::mapcat(rc::gen::elementOf(applicable), [scenario](Corruption c) {
    const MethodScenario& m = scenario.methods[c.method];
    const size_t targets = corruption_targets_tensor(c.kind)
                               ? m.tensors.size()
                               : std::max<size_t>(m.buffers.size(), 1);
    // amount 0 (the boundary: one past the end, index -1, type 2) often; larger ones too.
    const rc::Gen<uint32_t> amount = rc::gen::weightedOneOf<uint32_t>(
        {{2, rc::gen::just<uint32_t>(0)}, {1, rc::gen::inRange<uint32_t>(1, 300)}});
    return rc::gen::map(
        rc::gen::pair(rc::gen::inRange<uint32_t>(0, static_cast<uint32_t>(targets)), amount),
        [c](const std::pair<uint32_t, uint32_t>& p) {
          Corruption out = c;
          out.target = p.first;
          out.amount = p.second;
          return out;
        });
  });
}

}  // namespace devplan::testing

namespace devplan {

void showValue(const ProgramScenario& scenario, std::ostream& os) {
  os << "\n" << describe_program_scenario(scenario);
}

void showValue(const Corruption& c, std::ostream& os) {
  os << corruption_kind_name(c.kind) << " (method " << c.method << ", target " << c.target
     << ", amount " << c.amount << ")";
}

}  // namespace devplan
