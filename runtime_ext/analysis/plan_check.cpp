#include <runtime_ext/analysis/plan_check.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>
#include <utility>

#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

constexpr uint64_t kCheckAlignment = 16;

// Step `step` names `value` and, for tensor lists, the values it lists.
void name_value(const MethodPlan& plan, LifetimeRecorder& recorder, int32_t value, int32_t step) {
  recorder.use(value, step);
  const ValueInfo& v = plan.values[value];
  if (v.tag == ValueTag::TensorList || v.tag == ValueTag::OptionalTensorList) {
    for (int32_t item : v.value_list) {
      if (item != kNoneListItem) recorder.use(item, step);
    }
  }
}

}  // namespace

std::vector<Lifetime> value_lifetimes(const MethodPlan& plan, int32_t* num_steps) {
  LifetimeRecorder recorder(plan.values.size());
  int32_t step = 0;
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      switch (ins.kind) {
        case InstructionKind::KernelCall:
        case InstructionKind::DelegateCall:
          for (int32_t arg : ins.args) name_value(plan, recorder, arg, step);
          break;
        case InstructionKind::Move:
          name_value(plan, recorder, ins.move_from, step);
          name_value(plan, recorder, ins.move_to, step);
          break;
        case InstructionKind::JumpFalse:
          name_value(plan, recorder, ins.cond_value, step);
          break;
        case InstructionKind::Free:
          name_value(plan, recorder, ins.free_value, step);
          break;
      }
      ++step;
    }
  }
  *num_steps = num_steps_for(static_cast<size_t>(step));
  return std::move(recorder).finish(plan.inputs, plan.outputs, *num_steps);
}

namespace {

// How many trailing args of an out-variant KernelCall are its returns: they repeat out
// arguments named earlier in the list (aten::add.out: [self, other, alpha, out, out] -> 1). At
// least 1: a call whose last arg repeats nothing returns that arg.
size_t returned_args(const InstructionInfo& ins) {
  const size_t n = ins.args.size();
  size_t returned = 0;
  while (returned < n / 2) {
    const int32_t arg = ins.args[n - 1 - returned];
    const auto head_end = ins.args.begin() + static_cast<std::ptrdiff_t>(n - 1 - returned);
    if (std::find(ins.args.begin(), head_end, arg) == head_end) break;
    ++returned;
  }
  return std::max<size_t>(returned, 1);
}

// Which values are ever written and when first, and which are read by the first instruction
// that names them (before anything writes them), by the rules in plan_check.h.
struct WriteFacts {
  static constexpr int32_t kBeforeFirstStep = -1;  // method inputs, initial values
  static constexpr int32_t kNever = INT32_MAX;

  std::vector<bool> written;
  std::vector<bool> read_first;
  std::vector<int32_t> first_write;  // per value: the step of its first write, or the above
  std::vector<int32_t> last_read;    // per value: the last step that reads it, or -1
};

WriteFacts write_facts(const MethodPlan& plan) {
  const size_t n = plan.values.size();
  WriteFacts facts{std::vector<bool>(n, false), std::vector<bool>(n, false),
                   std::vector<int32_t>(n, WriteFacts::kNever), std::vector<int32_t>(n, -1)};
  std::vector<bool> named(n, false);
  auto written_before_start = [&](size_t v) {
    facts.written[v] = named[v] = true;
    facts.first_write[v] = WriteFacts::kBeforeFirstStep;
  };
  for (int32_t input : plan.inputs) written_before_start(static_cast<size_t>(input));
  for (size_t v = 0; v < n; ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor &&
        value.tensor.storage == TensorStorage::PlannedWithInitial) {
      written_before_start(v);
    }
  }
  int32_t step = 0;
  auto use = [&](int32_t value, bool writes) {
    if (!named[value]) facts.read_first[value] = !writes;
    named[value] = true;
    if (writes && !facts.written[value]) {
      facts.written[value] = true;
      facts.first_write[value] = step;
    }
    if (writes) return;
    facts.last_read[value] = step;
    const ValueInfo& v = plan.values[value];
    if (v.tag != ValueTag::TensorList && v.tag != ValueTag::OptionalTensorList) return;
    for (int32_t item : v.value_list) {
      if (item != kNoneListItem) facts.last_read[item] = step;
    }
  };
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      switch (ins.kind) {
        case InstructionKind::KernelCall: {
          if (ins.args.empty()) break;
          const size_t first_return = ins.args.size() - returned_args(ins);
          std::vector<int32_t> returns(ins.args.begin() + static_cast<std::ptrdiff_t>(first_return),
                                       ins.args.end());
          // A returned tensor list (native_layer_norm.out returns (out, mean, rstd)) writes
          // its items, which are also its out arguments.
          for (size_t r = 0, n = returns.size(); r < n; ++r) {
            const ValueInfo& returned = plan.values[returns[r]];
            if (returned.tag == ValueTag::TensorList ||
                returned.tag == ValueTag::OptionalTensorList) {
              for (int32_t item : returned.value_list) {
                if (item != kNoneListItem) returns.push_back(item);
              }
            }
          }
          for (int32_t arg : ins.args) {
            use(arg, std::find(returns.begin(), returns.end(), arg) != returns.end());
          }
          break;
        }
        case InstructionKind::DelegateCall:
          // Inputs then outputs, with no count in the file: an arg it names first, it writes.
          for (int32_t arg : ins.args) use(arg, !named[arg]);
          break;
        case InstructionKind::Move:
          use(ins.move_from, false);
          use(ins.move_to, true);
          break;
        case InstructionKind::JumpFalse:
          use(ins.cond_value, false);
          break;
        case InstructionKind::Free:
          break;
      }
      ++step;
    }
  }
  // A tensor read before it is written holds state from the previous execution (a mutable
  // buffer): it holds its bytes from the start.
  for (size_t v = 0; v < n; ++v) {
    if (facts.read_first[v] && facts.written[v])
      facts.first_write[v] = WriteFacts::kBeforeFirstStep;
  }
  return facts;
}

bool inside(const TensorInfo& inner, const TensorInfo& outer) {
  return inner.buffer_index == outer.buffer_index && inner.offset >= outer.offset &&
         inner.offset + inner.nbytes <= outer.offset + outer.nbytes;
}

bool share_bytes(const TensorInfo& a, const TensorInfo& b) {
  return a.buffer_index == b.buffer_index && a.offset < b.offset + b.nbytes &&
         b.offset < a.offset + a.nbytes;
}

// The views of a method and their bases (see find_aliases).
struct Aliases {
  std::vector<int32_t> alias_of;  // per value: its base, or -1
  std::vector<bool> scratch;      // per value: every candidate base was dead at its first use
  // per view: the tensors covering it, written before its first use (its possible bases)
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::string> warnings;  // views whose bytes no live tensor holds
};

// A view is a planned tensor that no instruction writes and that lies inside the bytes of a
// written planned tensor of its buffer. Its base is the tensor that holds the view's bytes when
// the view is first used (step f): of the written tensors covering them, the one written most
// recently before f (an instruction reads its arguments before it writes, so one written at f
// does not count), on a tie the one still named at f or later, then the smaller, then the lower
// index. That base must still hold the bytes: when another tensor written after it and before f
// shares some of them, no tensor is live there and the view has no base (a warning says so).
Aliases find_aliases(const MethodPlan& plan, const WriteFacts& facts,
                     const std::vector<Lifetime>& life) {
  Aliases aliases;
  aliases.alias_of.assign(plan.values.size(), -1);
  aliases.scratch.assign(plan.values.size(), false);
  aliases.candidates.resize(plan.values.size());
  std::vector<int32_t> planned;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor && value.tensor.is_planned() && value.tensor.nbytes > 0) {
      planned.push_back(static_cast<int32_t>(v));
    }
  }
  const std::vector<int32_t>& wrote = facts.first_write;
  for (int32_t v : planned) {
    if (facts.written[v] || life[v].first < 0) continue;
    const TensorInfo& t = plan.values[v].tensor;
    const int32_t f = life[v].first;
    auto better = [&](int32_t u, int32_t base) {
      if (wrote[u] != wrote[base]) return wrote[u] > wrote[base];
      const bool u_live = life[u].last >= f, base_live = life[base].last >= f;
      if (u_live != base_live) return u_live;
      const uint64_t u_bytes = plan.values[u].tensor.nbytes;
      const uint64_t base_bytes = plan.values[base].tensor.nbytes;
      if (u_bytes != base_bytes) return u_bytes < base_bytes;
      return u < base;
    };
    int32_t base = -1;
    bool covered = false;  // some written tensor covers the view's bytes, at any time
    bool all_dead = true;  // every candidate was read after its write and not used since
    for (int32_t u : planned) {
      if (u == v || !facts.written[u] || !inside(t, plan.values[u].tensor)) continue;
      covered = true;
      if (wrote[u] >= f) continue;
      aliases.candidates[v].push_back(u);
      if (base < 0 || better(u, base)) base = u;
      all_dead = all_dead && life[u].last < f && facts.last_read[u] > wrote[u];
    }
    aliases.scratch[v] = base >= 0 && all_dead;
    if (!covered) continue;  // not a view: a tensor of its own (a mutable buffer when read)
    int32_t clobber = -1;
    for (int32_t x : planned) {
      if (base < 0 || x == v || x == base || !facts.written[x]) continue;
      if (wrote[x] > wrote[base] && wrote[x] < f && share_bytes(t, plan.values[x].tensor)) {
        clobber = x;
      }
    }
    const std::string view = "value " + std::to_string(v) + ": a view of bytes [" +
                             std::to_string(t.offset) + ", " + std::to_string(t.offset + t.nbytes) +
                             ") of buffer " + std::to_string(t.buffer_index);
    if (base < 0) {
      aliases.warnings.push_back(view +
                                 " has no base: no tensor holding those bytes was "
                                 "written before its first use (instruction " +
                                 std::to_string(f) + ")");
    } else if (clobber >= 0) {
      aliases.warnings.push_back(
          view + " has no base: value " + std::to_string(clobber) +
          " overwrote some of those bytes after value " + std::to_string(base) +
          " wrote them, before its first use (instruction " + std::to_string(f) + ")");
    } else {
      aliases.alias_of[v] = base;
    }
  }
  return aliases;
}

// The overlaps of `items` (tensors `owners` at `offsets`) in buffer `b`, each with the tensor
// that starts first as value_a.
std::vector<Overlap> buffer_overlaps(size_t b, uint64_t size, const std::vector<PlanItem>& items,
                                     const std::vector<uint64_t>& offsets,
                                     const std::vector<int32_t>& owners) {
  std::vector<Overlap> found;
  // Alignment 1: a misaligned offset is not an overlap, and placement is the loader's check.
  for (const PlanViolation& v : verify_offsets(items, offsets, size, 1)) {
    if (v.kind != PlanViolationKind::Overlap) continue;
    size_t x = static_cast<size_t>(v.tensor), y = static_cast<size_t>(v.other);
    if (items[y].first < items[x].first ||
        (items[y].first == items[x].first && owners[y] < owners[x])) {
      std::swap(x, y);
    }
    Overlap o;
    o.buffer = b;
    o.value_a = owners[x];
    o.value_b = owners[y];
    o.a_begin = offsets[x];
    o.a_end = offsets[x] + items[x].size;
    o.b_begin = offsets[y];
    o.b_end = offsets[y] + items[y].size;
    o.first_step = std::max(items[x].first, items[y].first);
    o.last_step = std::min(items[x].last, items[y].last);
    found.push_back(o);
  }
  return found;
}

// The tensors of one buffer for buffer_overlaps and the lower bound.
struct BufferItems {
  std::vector<PlanItem> items;
  std::vector<uint64_t> offsets;
  std::vector<int32_t> owners;
  void add(const TensorInfo& t, const Lifetime& l, int32_t v) {
    items.push_back(PlanItem{t.nbytes, l.first, l.last});
    offsets.push_back(t.offset);
    owners.push_back(v);
  }
};

std::string bytes_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// The note for an overlap that only the view reading has (see check_method_plan).
std::string view_reading_note(const Overlap& o, const MethodCheck& check,
                              const std::vector<Lifetime>& own, const MethodPlan& plan,
                              const std::vector<bool>& scratch) {
  std::string text = "values " + std::to_string(o.value_a) + " " + bytes_text(o.a_begin, o.a_end) +
                     " and " + std::to_string(o.value_b) + " " + bytes_text(o.b_begin, o.b_end) +
                     " of buffer " + std::to_string(o.buffer) +
                     " share bytes during instructions " + std::to_string(o.first_step) + ".." +
                     std::to_string(o.last_step) + " only if ";
  for (size_t v = 0; v < check.alias_of.size(); ++v) {
    const int32_t base = check.alias_of[v];
    if (base != o.value_a && base != o.value_b) continue;
    if (own[v].last <= own[base].last || own[v].last < o.first_step) continue;
    const TensorInfo& t = plan.values[v].tensor;
    return text + "value " + std::to_string(v) + " " + bytes_text(t.offset, t.offset + t.nbytes) +
           ", which no instruction writes, is a view of value " + std::to_string(base) +
           " (it keeps value " + std::to_string(base) + " live to instruction " +
           std::to_string(own[v].last) + "); read as " +
           (scratch[v] ? "scratch memory of instructions " : "a tensor of its own, live at ") +
           std::to_string(own[v].first) + ".." + std::to_string(own[v].last) +
           ", it is not. No instruction says which: not an overlap";
  }
  return text + "never-written tensors are views of the tensors around them: not an overlap";
}

}  // namespace

MethodCheck check_method_plan(const MethodPlan& plan) {
  MethodCheck check;
  check.name = plan.name;
  check.lifetimes = value_lifetimes(plan, &check.num_steps);
  const WriteFacts facts = write_facts(plan);
  Aliases aliases = find_aliases(plan, facts, check.lifetimes);
  check.alias_of = std::move(aliases.alias_of);
  check.written = facts.written;
  check.warnings = std::move(aliases.warnings);
  check.notes = plan.notes;  // what the parser read leniently, as ExecuTorch does
  const std::vector<bool>& read_first = facts.read_first;
  check.mutable_buffer.assign(plan.values.size(), false);
  std::vector<bool> is_input(plan.values.size(), false);
  for (int32_t input : plan.inputs) is_input[input] = true;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned()) continue;
    if (check.alias_of[v] < 0 && read_first[v] && !is_input[v]) check.mutable_buffer[v] = true;
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (check.mutable_buffer[v]) check.lifetimes[v] = Lifetime{0, check.num_steps - 1};
  }
  // Each tensor's own lifetime: what the program states. Whether a never-written tensor inside
  // a written one is a view of it or scratch memory of its own instructions is devplan's
  // inference: a finding (an overlap, the lower bound) must hold under both readings, and what
  // only the view reading has is a note.
  check.own_lifetimes = check.lifetimes;
  const std::vector<Lifetime>& own = check.own_lifetimes;
  std::vector<bool> inferred(plan.values.size(), false);
  for (size_t v = 0; v < plan.values.size(); ++v) inferred[v] = check.alias_of[v] >= 0;
  // The view reading (plots and replanning keep every reading's bytes): an alias's uses keep its
  // base alive.
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (check.alias_of[v] >= 0) check.lifetimes[check.alias_of[v]].include(check.lifetimes[v]);
  }
  // A view and a tensor that may be its base (or two views inside one tensor) share bytes by
  // design under the view reading.
  auto may_share = [&](int32_t a, int32_t b) {
    const std::vector<int32_t>& ca = aliases.candidates[a];
    const std::vector<int32_t>& cb = aliases.candidates[b];
    if (inferred[a] && std::find(ca.begin(), ca.end(), b) != ca.end()) return true;
    if (inferred[b] && std::find(cb.begin(), cb.end(), a) != cb.end()) return true;
    if (!inferred[a] || !inferred[b]) return false;
    for (int32_t x : ca) {
      if (std::find(cb.begin(), cb.end(), x) != cb.end()) return true;
    }
    return false;
  };
  const size_t num_buffers = plan.buffer_sizes.size();
  std::vector<BufferItems> stated(num_buffers), viewed(num_buffers);
  for (size_t b = 0; b < num_buffers; ++b) {
    BufferCheck buffer;
    buffer.index = b;
    buffer.device = plan.buffer_devices[b];
    buffer.size = plan.buffer_sizes[b];
    check.buffers.push_back(buffer);
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor && value.tensor.storage == TensorStorage::External) {
      check.warnings.push_back("value " + std::to_string(v) + ": external tensor '" +
                               value.tensor.fully_qualified_name +
                               "' (data in a separate .ptd file): not planned, not checked");
      continue;
    }
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned()) continue;
    const uint32_t b = value.tensor.buffer_index;
    ++check.buffers[b].planned_tensors;
    if (value.tensor.legacy_host) {
      check.warnings.push_back("value " + std::to_string(v) + ": tagged " +
                               value.tensor.device.to_string() + ", planned in host buffer " +
                               std::to_string(b) + " (legacy planning)");
    }
    if (own[v].first < 0 || value.tensor.nbytes == 0) continue;
    const int32_t index = static_cast<int32_t>(v);
    stated[b].add(value.tensor, own[v], index);
    if (!inferred[v]) viewed[b].add(value.tensor, check.lifetimes[v], index);
  }
  std::vector<Overlap> view_reading;
  for (size_t b = 0; b < num_buffers; ++b) {
    // A lower bound under either reading: the smaller of the view reading's (a view counts once,
    // in its base, which it keeps alive) and that of every tensor's own lifetime.
    check.buffers[b].view_lower_bound = live_bytes_lower_bound(viewed[b].items, kCheckAlignment);
    check.buffers[b].lower_bound =
        std::min(check.buffers[b].view_lower_bound,
                 live_bytes_lower_bound(stated[b].items, kCheckAlignment));
    const uint64_t size = check.buffers[b].size;
    for (const Overlap& o :
         buffer_overlaps(b, size, stated[b].items, stated[b].offsets, stated[b].owners)) {
      if (!may_share(o.value_a, o.value_b)) check.overlaps.push_back(o);
    }
    for (const Overlap& o :
         buffer_overlaps(b, size, viewed[b].items, viewed[b].offsets, viewed[b].owners)) {
      view_reading.push_back(o);
    }
  }
  for (const Overlap& o : view_reading) {
    const bool stated_too =
        std::any_of(check.overlaps.begin(), check.overlaps.end(), [&](const Overlap& f) {
          return std::minmax(f.value_a, f.value_b) == std::minmax(o.value_a, o.value_b);
        });
    if (!stated_too) check.notes.push_back(view_reading_note(o, check, own, plan, aliases.scratch));
  }
  check.device_violations = check_devices(plan);
  std::sort(check.overlaps.begin(), check.overlaps.end(), [](const Overlap& a, const Overlap& b) {
    return std::tie(a.buffer, a.value_a, a.value_b) < std::tie(b.buffer, b.value_a, b.value_b);
  });
  return check;
}

namespace {

// The device a delegate's `target_device` compile spec names ("cuda:0", "CUDA", "cuda"), or
// nullopt when it has none or it does not parse.
std::optional<Device> delegate_target(const DelegateInfo& delegate) {
  for (const CompileSpecInfo& spec : delegate.compile_specs) {
    if (spec.key != "target_device") continue;
    std::string text(spec.value.begin(), spec.value.end());
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (text.find(':') == std::string::npos) text += ":0";
    Result<Device> device = parse_device(text);
    if (device.ok()) return *device;
  }
  return std::nullopt;
}

// The tensors an argument names: itself, or a tensor list's items.
std::vector<int32_t> tensors_of(const MethodPlan& plan, int32_t arg) {
  const ValueInfo& v = plan.values[arg];
  if (v.tag == ValueTag::Tensor) return {arg};
  std::vector<int32_t> out;
  if (v.tag == ValueTag::TensorList || v.tag == ValueTag::OptionalTensorList) {
    for (int32_t item : v.value_list) {
      if (item >= 0 && plan.values[item].tag == ValueTag::Tensor) out.push_back(item);
    }
  }
  return out;
}

}  // namespace

std::vector<DeviceViolation> check_devices(const MethodPlan& plan) {
  std::vector<DeviceViolation> found;
  std::vector<bool> io(plan.values.size(), false);
  for (int32_t v : plan.inputs) io[v] = true;
  for (int32_t v : plan.outputs) io[v] = true;
  int32_t step = -1;
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      ++step;
      auto violation = [&](const std::string& what, int32_t value, const std::string& text) {
        DeviceViolation d;
        d.step = step;
        d.instruction = what;
        d.value = value;
        d.message = "instruction " + std::to_string(step) + " (" + what + "): " + text;
        found.push_back(std::move(d));
      };
      auto where = [&](int32_t v) { return plan.values[v].tensor.memory_device(); };
      if (ins.kind == InstructionKind::KernelCall) {
        const std::string op = plan.operators[ins.op_index].full_name();
        const bool h2d = op == "et_copy::_h2d_copy.out";
        const bool d2h = op == "et_copy::_d2h_copy.out";
        if (h2d || d2h) {
          if (ins.args.size() < 2 || plan.values[ins.args[0]].tag != ValueTag::Tensor ||
              plan.values[ins.args[1]].tag != ValueTag::Tensor) {
            continue;  // the loader rejects malformed copies
          }
          const int32_t self = ins.args[0], out = ins.args[1];
          const TensorInfo& a = plan.values[self].tensor;
          const TensorInfo& b = plan.values[out].tensor;
          if (h2d && !where(self).is_cpu()) {
            violation(op, self,
                      "self value " + std::to_string(self) + " is on " + where(self).to_string() +
                          ", a host-to-device copy reads host memory");
          }
          if (h2d && where(out).is_cpu()) {
            violation(op, out,
                      "out value " + std::to_string(out) +
                          " is on cpu:0, a host-to-device copy writes a device");
          }
          if (d2h && where(self).is_cpu()) {
            violation(op, self,
                      "self value " + std::to_string(self) +
                          " is on cpu:0, a device-to-host copy reads a device");
          }
          if (d2h && !where(out).is_cpu()) {
            violation(op, out,
                      "out value " + std::to_string(out) + " is on " + where(out).to_string() +
                          ", a device-to-host copy writes host memory");
          }
          if (a.dtype != b.dtype || a.nbytes != b.nbytes) {
            violation(op, out,
                      "self value " + std::to_string(self) + " is " + scalar_type_name(a.dtype) +
                          " (" + std::to_string(a.nbytes) + " B), out value " +
                          std::to_string(out) + " is " + scalar_type_name(b.dtype) + " (" +
                          std::to_string(b.nbytes) + " B)");
          }
          continue;
        }
        for (int32_t arg : ins.args) {
          for (int32_t t : tensors_of(plan, arg)) {
            if (!where(t).is_cpu()) {
              violation(op, t,
                        "value " + std::to_string(t) + " is on " + where(t).to_string() +
                            ", a host kernel touches only host memory (cpu:0)");
            }
          }
        }
      } else if (ins.kind == InstructionKind::DelegateCall) {
        const DelegateInfo& delegate = plan.delegates[ins.delegate_index];
        const std::optional<Device> target = delegate_target(delegate);
        if (!target) continue;
        const std::string what = "delegate " + delegate.id + " on " + target->to_string();
        for (int32_t arg : ins.args) {
          for (int32_t t : tensors_of(plan, arg)) {
            // The tag, but for a tensor whose tag disagrees with its device buffer (a parser
            // note): there the bytes decide.
            const TensorInfo& tensor = plan.values[t].tensor;
            const Device tag = tensor.other_buffer_device.value_or(tensor.device);
            if (tag == *target || (tag.is_cpu() && io[t])) continue;
            violation(what, t,
                      "value " + std::to_string(t) + " is on " + tag.to_string() +
                          ", the delegate's tensors live on " + target->to_string());
          }
        }
      }
    }
  }
  return found;
}

std::string describe_overlap(const Overlap& o) {
  return "values " + std::to_string(o.value_a) + " and " + std::to_string(o.value_b) +
         " in buffer " + std::to_string(o.buffer) + " share bytes [" +
         std::to_string(std::max(o.a_begin, o.b_begin)) + ", " +
         std::to_string(std::min(o.a_end, o.b_end)) + ") during instructions " +
         std::to_string(o.first_step) + ".." + std::to_string(o.last_step) + " (value " +
         std::to_string(o.value_a) + " at [" + std::to_string(o.a_begin) + ", " +
         std::to_string(o.a_end) + "), value " + std::to_string(o.value_b) + " at [" +
         std::to_string(o.b_begin) + ", " + std::to_string(o.b_end) + "))";
}

}  // namespace devplan
