// The views of a method and their bases (plan_view_aliases.h).
#include <runtime_ext/analysis/plan_view_aliases.h>

namespace devplan::internal {
namespace {

bool inside(const TensorInfo& inner, const TensorInfo& outer) {
  return inner.buffer_index == outer.buffer_index && inner.offset >= outer.offset &&
         inner.offset + inner.nbytes <= outer.offset + outer.nbytes;
}

bool share_bytes(const TensorInfo& a, const TensorInfo& b) {
  return a.buffer_index == b.buffer_index && a.offset < b.offset + b.nbytes &&
         b.offset < a.offset + a.nbytes;
}

}  // namespace

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

}  // namespace devplan::internal
