#include <harness/scenario/seeded_generator.h>

#include <runtime_ext/planning/split_mix64.h>

#include <algorithm>
#include <set>

#include <runtime_ext/core/alignment.h>

namespace devplan {
namespace {

bool supported_device(Device d) {
  return (d.type == DeviceType::CPU && d.index == 0) ||
         (d.type == DeviceType::CUDA && d.index >= 0);
}

bool same_type(const ScenarioTensor& a, const ScenarioTensor& b) {
  return a.dtype == b.dtype && a.shape == b.shape;
}

template <typename T>
T pick(const std::vector<T>& candidates, uint32_t choice) {
  return candidates[choice % candidates.size()];
}

// Operand candidates of one resolved method.
class OperandPicker {
 public:
  explicit OperandPicker(const MethodScenario& m) : m_(m) {}

  bool resolve(const InstructionDraft& d, ScenarioInstruction* out) const {
    out->op = d.op;
    out->tensors.clear();
    out->values.clear();
    const auto& c = d.choices;
    switch (d.op) {
      case ScenarioOp::Add:
      case ScenarioOp::Mul: {
        const std::vector<int32_t> a_cands =
            tensors([&](int32_t t) { return host(t) && is_kernel_dtype(tensor(t).dtype); });
        if (a_cands.empty()) return false;
        const int32_t a = pick(a_cands, c[0]);
        const std::vector<int32_t> same =
            tensors([&](int32_t t) { return host(t) && same_type(tensor(t), tensor(a)); });
        out->tensors = {a, pick(same, c[1]), pick(same, c[2])};
        if (d.op == ScenarioOp::Mul) return true;
        const ScalarType dtype = tensor(a).dtype;
        const bool floating = dtype == ScalarType::Float || dtype == ScalarType::Double;
        std::vector<int32_t> alphas;
        for (size_t v = 0; v < m_.values.size(); ++v) {
          const ScenarioValueKind k = m_.values[v].kind;
          if (k == ScenarioValueKind::Int || (floating && k == ScenarioValueKind::Double)) {
            alphas.push_back(static_cast<int32_t>(v));
          }
        }
        if (alphas.empty()) return false;
        out->values = {pick(alphas, c[3])};
        return true;
      }
      case ScenarioOp::CopyH2D:
      case ScenarioOp::CopyD2H: {
        const std::vector<int32_t> device_cands = tensors([&](int32_t t) {
          return !host(t) && !tensors([&](int32_t h) {
                                return host(h) && same_type(tensor(h), tensor(t));
                              }).empty();
        });
        if (device_cands.empty()) return false;
        const int32_t dev = pick(device_cands, c[0]);
        const int32_t h = pick(
            tensors([&](int32_t x) { return host(x) && same_type(tensor(x), tensor(dev)); }), c[1]);
        out->tensors = d.op == ScenarioOp::CopyH2D ? std::vector<int32_t>{h, dev}
                                                   : std::vector<int32_t>{dev, h};
        return true;
      }
      case ScenarioOp::DelegateAdd: {
        const std::vector<int32_t> a_cands =
            tensors([&](int32_t t) { return !host(t) && is_kernel_dtype(tensor(t).dtype); });
        if (a_cands.empty()) return false;
        const int32_t a = pick(a_cands, c[0]);
        const std::vector<int32_t> same = tensors([&](int32_t t) {
          return m_.tensor_device(t) == m_.tensor_device(a) && same_type(tensor(t), tensor(a));
        });
        out->tensors = {a, pick(same, c[1]), pick(same, c[2])};
        return true;
      }
      case ScenarioOp::Move: {
        if (m_.values.empty()) return false;
        const int32_t from = static_cast<int32_t>(c[0] % m_.values.size());
        std::vector<int32_t> same;
        for (size_t v = 0; v < m_.values.size(); ++v) {
          if (m_.values[v].kind == m_.values[from].kind) same.push_back(static_cast<int32_t>(v));
        }
        out->values = {from, pick(same, c[1])};
        return true;
      }
      case ScenarioOp::Free: {
        // Only a Tensor can be freed (ExecuTorch's rule, and runtime_ext's).
        if (m_.tensors.empty()) return false;
        out->tensors = {static_cast<int32_t>(c[0] % m_.tensors.size())};
        return true;
      }
    }
    return false;
  }

 private:
  const ScenarioTensor& tensor(int32_t t) const { return m_.tensors[t]; }
  bool host(int32_t t) const { return m_.tensor_device(t).is_cpu(); }

  template <typename Pred>
  std::vector<int32_t> tensors(Pred pred) const {
    std::vector<int32_t> out;
    for (size_t t = 0; t < m_.tensors.size(); ++t) {
      if (pred(static_cast<int32_t>(t))) out.push_back(static_cast<int32_t>(t));
    }
    return out;
  }

  const MethodScenario& m_;
};

std::vector<int32_t> resolve_tensor_choices(const std::vector<uint32_t>& choices,
                                            size_t num_tensors) {
  std::vector<int32_t> out;
  if (num_tensors == 0) return out;
  for (uint32_t c : choices) {
    const int32_t t = static_cast<int32_t>(c % num_tensors);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

}  // namespace

std::string scenario_method_name(size_t index) {
  static const char* const kNames[] = {"forward", "encode", "decode", "prefill"};
  if (index < 4) return kNames[index];
  return "method" + std::to_string(index);
}

// A FreeCall leaves its tensor without memory (in ExecuTorch, a null data pointer), so a
// generated program frees a tensor only when nothing reads it afterwards: no later instruction
// and not a method output.
static void drop_frees_before_use(MethodScenario* m) {
  std::vector<bool> needed(m->tensors.size(), false);
  for (int32_t t : m->outputs) needed[static_cast<size_t>(t)] = true;
  std::vector<ScenarioInstruction> kept;
  for (size_t i = m->instructions.size(); i-- > 0;) {
    const ScenarioInstruction& in = m->instructions[i];
    if (in.op == ScenarioOp::Free) {
      if (in.tensors.empty() || needed[static_cast<size_t>(in.tensors[0])]) continue;
    } else {
      for (int32_t t : in.tensors) needed[static_cast<size_t>(t)] = true;
    }
    kept.push_back(in);
  }
  m->instructions.assign(kept.rbegin(), kept.rend());
}

MethodScenario resolve_method_draft(const MethodDraft& draft) {
  MethodScenario m;
  m.name = draft.name;
  m.buffers = draft.buffers;
  for (ScenarioBuffer& b : m.buffers) {
    if (!supported_device(b.device)) b.device = Device::cpu();
  }
  std::vector<TensorTypeDraft> types = draft.types;
  for (TensorTypeDraft& t : types) {
    if (element_size(t.dtype) == 0) t.dtype = ScalarType::Float;
    for (int32_t& d : t.shape) d = std::max(d, 0);
  }
  if (!types.empty() && !m.buffers.empty()) {
    for (const TensorDraft& d : draft.tensors) {
      const TensorTypeDraft& type = types[d.type % types.size()];
      ScenarioTensor t;
      t.dtype = type.dtype;
      t.shape = type.shape;
      const uint64_t nbytes = scenario_tensor_nbytes(t);
      const size_t nb = m.buffers.size();
      for (size_t k = 0; k < nb; ++k) {
        const size_t b = (d.buffer % nb + k) % nb;
        const uint64_t size = m.buffers[b].size;
        if (nbytes > size) continue;
        const uint64_t slots = (size - nbytes) / kDefaultAlignment + 1;
        t.buffer = static_cast<uint32_t>(b);
        t.offset = ((d.offset / kDefaultAlignment) % slots) * kDefaultAlignment;
        t.initial = d.initial && nbytes > 0;
        m.tensors.push_back(t);
        break;
      }
    }
  }
  m.values = draft.values;
  for (ScenarioValue& v : m.values) {
    // Workaround: flatbuffers writes an empty vector without aligning it, and the reader
    // (runtime_ext/program plan_parser's elements_aligned) rejects an empty IntList or
    // DoubleList that happens to be unaligned. Until the reader accepts empty vectors,
    // resolved scenarios hold no empty numeric lists.
    if (v.kind == ScenarioValueKind::IntList && v.int_list.empty()) v.int_list = {0};
    // ExecuTorch reads IntList items as value indices (runtime_ext as the integers; see
    // docs/executorch-divergences.md), so generated items are valid value indices.
    if (v.kind == ScenarioValueKind::IntList) {
      for (int64_t& item : v.int_list) {
        item = static_cast<int64_t>(static_cast<uint64_t>(item) % draft.values.size());
      }
    }
    if (v.kind == ScenarioValueKind::DoubleList && v.double_list.empty()) v.double_list = {0.0};
    std::vector<int32_t> items;
    if (v.kind == ScenarioValueKind::TensorList && !m.tensors.empty()) {
      for (int32_t c : v.tensor_list) {
        items.push_back(static_cast<int32_t>(static_cast<uint32_t>(c) % m.tensors.size()));
      }
    }
    v.tensor_list = std::move(items);
  }
  const OperandPicker picker(m);
  for (const InstructionDraft& d : draft.instructions) {
    ScenarioInstruction in;
    if (picker.resolve(d, &in)) m.instructions.push_back(std::move(in));
  }
  m.inputs = resolve_tensor_choices(draft.inputs, m.tensors.size());
  m.outputs = resolve_tensor_choices(draft.outputs, m.tensors.size());
  drop_frees_before_use(&m);
  return m;
}

ProgramScenario resolve_program_draft(const ProgramDraft& draft) {
  ProgramScenario s;
  std::set<std::string> taken;
  const size_t n = std::max<size_t>(draft.methods.size(), 1);
  for (size_t i = 0; i < n; ++i) {
    MethodScenario m = i < draft.methods.size() ? resolve_method_draft(draft.methods[i])
                                                : resolve_method_draft(MethodDraft());
    if (m.name.empty() || taken.count(m.name)) m.name = scenario_method_name(i);
    for (int k = 1; taken.count(m.name); ++k) {
      m.name = "method" + std::to_string(i) + "_" + std::to_string(k);
    }
    taken.insert(m.name);
    s.methods.push_back(std::move(m));
  }
  return s;
}

ProgramDraft generate_program_draft(uint64_t seed, const ScenarioOptions& o) {
  SplitMix64 rng(seed);
  ProgramDraft draft;
  const size_t num_methods =
      rng.between(std::max<size_t>(o.min_methods, 1),
                  std::max(o.max_methods, std::max<size_t>(o.min_methods, 1)));
  for (size_t i = 0; i < num_methods; ++i) {
    MethodDraft m;
    m.name = scenario_method_name(i);

    // Buffers: some methods have a few, others up to max_buffers.
    const uint64_t scale = rng.below(4);
    const size_t max_buffers = scale == 0   ? std::min<size_t>(o.max_buffers, 2)
                               : scale == 1 ? std::min<size_t>(o.max_buffers, 8)
                                            : o.max_buffers;
    const size_t num_buffers = rng.between(0, max_buffers);
    for (size_t b = 0; b < num_buffers; ++b) {
      ScenarioBuffer buffer;
      const uint64_t category = rng.below(20);
      const uint64_t cap = o.max_buffer_bytes;
      if (category < 2) {
        buffer.size = 0;  // zero
      } else if (category < 7) {
        buffer.size = rng.between(1, std::min<uint64_t>(cap, 64));  // tiny
      } else if (category < 12) {
        buffer.size = rng.between(1, std::min<uint64_t>(cap, 4096));  // unaligned
      } else if (category < 18) {
        buffer.size = std::min<uint64_t>(cap, 16 * rng.between(1, 256));  // aligned
      } else if (category < 19) {
        buffer.size = rng.between(std::min<uint64_t>(cap, 4097), std::min<uint64_t>(cap, 65536));
      } else {
        buffer.size = rng.between(std::min<uint64_t>(cap, 65537), cap);  // large
      }
      buffer.device = o.devices.empty() ? Device::cpu() : o.devices[rng.below(o.devices.size())];
      m.buffers.push_back(buffer);
    }

    const size_t num_types = rng.between(1, std::max<size_t>(o.max_tensor_types, 1));
    for (size_t t = 0; t < num_types; ++t) {
      TensorTypeDraft type;
      type.dtype = o.dtypes.empty() ? ScalarType::Float : o.dtypes[rng.below(o.dtypes.size())];
      const size_t rank = rng.between(0, o.max_rank);
      for (size_t d = 0; d < rank; ++d) {
        type.shape.push_back(
            rng.below(16) == 0 ? 0 : static_cast<int32_t>(rng.between(1, std::max(o.max_dim, 1))));
      }
      m.types.push_back(type);
    }
    const size_t num_tensors = rng.between(0, o.max_tensors);
    for (size_t t = 0; t < num_tensors; ++t) {
      TensorDraft d;
      d.type = rng.choice();
      d.buffer = rng.choice();
      d.offset = rng.next() >> 8;
      m.tensors.push_back(d);
    }

    const size_t num_values = rng.between(0, o.max_values);
    for (size_t v = 0; v < num_values; ++v) {
      // Weights: Int 3, Double 2, every other kind 1.
      static const ScenarioValueKind kKinds[] = {
          ScenarioValueKind::Int,      ScenarioValueKind::Int,       ScenarioValueKind::Int,
          ScenarioValueKind::Double,   ScenarioValueKind::Double,    ScenarioValueKind::Null,
          ScenarioValueKind::Bool,     ScenarioValueKind::IntList,   ScenarioValueKind::DoubleList,
          ScenarioValueKind::BoolList, ScenarioValueKind::TensorList};
      ScenarioValue value;
      value.kind = kKinds[rng.below(sizeof(kKinds) / sizeof(kKinds[0]))];
      const size_t len = rng.between(0, 4);  // IntList and DoubleList: see resolve_method_draft
      switch (value.kind) {
        case ScenarioValueKind::Null:
          break;
        case ScenarioValueKind::Int:
          value.int_value = static_cast<int64_t>(rng.between(0, 8)) - 4;
          break;
        case ScenarioValueKind::Bool:
          value.bool_value = rng.below(2) == 1;
          break;
        case ScenarioValueKind::Double:
          value.double_value = (static_cast<double>(rng.between(0, 16)) - 8.0) / 4.0;
          break;
        case ScenarioValueKind::IntList:
          for (size_t k = 0; k < len; ++k)
            value.int_list.push_back(static_cast<int64_t>(rng.next()));
          break;
        case ScenarioValueKind::DoubleList:
          for (size_t k = 0; k < len; ++k) {
            value.double_list.push_back(static_cast<double>(rng.between(0, 1000)) / 8.0);
          }
          break;
        case ScenarioValueKind::BoolList:
          for (size_t k = 0; k < len; ++k) value.bool_list.push_back(rng.below(2) == 1);
          break;
        case ScenarioValueKind::TensorList:
          for (size_t k = 0; k < len; ++k)
            value.tensor_list.push_back(static_cast<int32_t>(rng.choice() >> 1));
          break;
      }
      m.values.push_back(value);
    }

    const size_t num_instructions = rng.between(0, o.max_instructions);
    bool has_add = false;
    for (size_t k = 0; k < num_instructions; ++k) {
      // Weights: add 3, mul 2, h2d 3, d2h 3, delegate 3, move 1, free 1.
      static const ScenarioOp kOps[] = {
          ScenarioOp::Add,         ScenarioOp::Add,         ScenarioOp::Add,
          ScenarioOp::Mul,         ScenarioOp::Mul,         ScenarioOp::CopyH2D,
          ScenarioOp::CopyH2D,     ScenarioOp::CopyH2D,     ScenarioOp::CopyD2H,
          ScenarioOp::CopyD2H,     ScenarioOp::CopyD2H,     ScenarioOp::DelegateAdd,
          ScenarioOp::DelegateAdd, ScenarioOp::DelegateAdd, ScenarioOp::Move,
          ScenarioOp::Free};
      InstructionDraft d;
      d.op = kOps[rng.below(sizeof(kOps) / sizeof(kOps[0]))];
      for (uint32_t& c : d.choices) c = rng.choice();
      if (std::find(o.ops.begin(), o.ops.end(), d.op) == o.ops.end()) continue;
      has_add = has_add || d.op == ScenarioOp::Add;
      m.instructions.push_back(d);
    }
    if (has_add && std::none_of(m.values.begin(), m.values.end(), [](const ScenarioValue& v) {
          return v.kind == ScenarioValueKind::Int;
        })) {
      ScenarioValue alpha;
      alpha.kind = ScenarioValueKind::Int;
      alpha.int_value = 1;
      m.values.push_back(alpha);
    }
    const size_t num_inputs = rng.between(0, o.max_inputs);
    for (size_t k = 0; k < num_inputs; ++k) m.inputs.push_back(rng.choice());
    const size_t num_outputs = rng.between(0, o.max_outputs);
    for (size_t k = 0; k < num_outputs; ++k) m.outputs.push_back(rng.choice());
    draft.methods.push_back(std::move(m));
  }
  return draft;
}

ProgramScenario generate_program_scenario(uint64_t seed, const ScenarioOptions& options) {
  return resolve_program_draft(generate_program_draft(seed, options));
}

}  // namespace devplan
