#include <runtime_ext/planning/graph_gen.h>

#include <runtime_ext/planning/split_mix64.h>

#include <algorithm>

namespace devplan {

const char* graph_family_name(GraphFamily family) {
  switch (family) {
    case GraphFamily::kChain:
      return "chain";
    case GraphFamily::kFanOut:
      return "fan_out";
    case GraphFamily::kResidual:
      return "residual";
    case GraphFamily::kUNet:
      return "unet";
    case GraphFamily::kAttention:
      return "attention";
    case GraphFamily::kRandomDag:
      return "random_dag";
  }
  return "unknown";
}

std::vector<GraphFamily> all_graph_families() {
  return {GraphFamily::kChain, GraphFamily::kFanOut,    GraphFamily::kResidual,
          GraphFamily::kUNet,  GraphFamily::kAttention, GraphFamily::kRandomDag};
}

Result<GraphFamily> parse_graph_family(const std::string& name) {
  for (GraphFamily f : all_graph_families()) {
    if (name == graph_family_name(f)) return f;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown graph family '" + name +
                   "' (expected chain, fan_out, residual, unet, attention or random_dag)");
}

namespace {

using Rng = SplitMix64;

constexpr char kBackend[] = "GenBackend";
constexpr double kRunStop = 0.25;  // chance a delegate run ends after each node

class Builder {
 public:
  explicit Builder(const GraphGenOptions& o)
      : o_(o),
        rng_(o.seed * 0x2545f4914f6cdd1dull + static_cast<uint64_t>(o.family) + 1),
        target_(std::max<size_t>(o.num_tensors, 2)) {
    g_.name = o.name;
  }

  bool full() const { return g_.tensors.size() >= target_; }
  Rng& rng() { return rng_; }

  int32_t tensor(int64_t rows, int64_t cols) {
    return g_.add_tensor("t" + std::to_string(g_.tensors.size()), ScalarType::Float,
                         {std::max<int64_t>(rows, 1), std::max<int64_t>(cols, 1)});
  }

  int32_t input(int64_t rows, int64_t cols) {
    const int32_t t = tensor(rows, cols);
    g_.inputs.push_back(t);
    return t;
  }

  // A node reading `ins` and producing one new [rows, cols] tensor.
  int32_t op(const char* name, std::vector<int32_t> ins, int64_t rows, int64_t cols) {
    const int32_t out = tensor(rows, cols);
    node(name, std::move(ins), {out});
    return out;
  }

  void node(const char* name, std::vector<int32_t> ins, std::vector<int32_t> outs) {
    if (o_.num_devices <= 0 || o_.delegate_fraction <= 0) {
      g_.add_kernel(name, std::move(ins), std::move(outs));
      return;
    }
    // Runs of delegates: a run ends with chance kRunStop after each node; one starts with the
    // chance that makes the long-run share of delegate nodes equal delegate_fraction.
    const double f = std::min(o_.delegate_fraction, 0.95);
    const double start = f * kRunStop / (1.0 - f);
    if (in_run_) {
      if (rng_.chance(kRunStop)) in_run_ = false;
    } else if (rng_.chance(start)) {
      in_run_ = true;
      run_device_ =
          Device::cuda(static_cast<DeviceIndex>(rng_.range(0, std::min(o_.num_devices, 128) - 1)));
    }
    if (in_run_) {
      g_.add_delegate(kBackend, run_device_, std::move(ins), std::move(outs));
    } else {
      g_.add_kernel(name, std::move(ins), std::move(outs));
    }
  }

  void output(int32_t t) {
    if (std::find(g_.outputs.begin(), g_.outputs.end(), t) == g_.outputs.end()) {
      g_.outputs.push_back(t);
    }
  }

  int64_t rows(int32_t t) const { return g_.tensors[t].shape[0]; }
  int64_t cols(int32_t t) const { return g_.tensors[t].shape[1]; }
  size_t num_tensors() const { return g_.tensors.size(); }

  Graph take() { return std::move(g_); }

 private:
  const GraphGenOptions& o_;
  Rng rng_;
  size_t target_;
  Graph g_;
  bool in_run_ = false;
  Device run_device_;
};

void chain(Builder& b) {
  Rng& r = b.rng();
  int32_t cur = b.input(r.range(8, 64), 32);
  while (!b.full()) cur = b.op("aten::relu.out", {cur}, r.range(8, 64), 32);
  b.output(cur);
}

void fan_out(Builder& b) {
  Rng& r = b.rng();
  int32_t h = b.input(r.range(16, 64), 32);
  while (!b.full()) {
    const int64_t branches = r.range(2, 4);
    std::vector<int32_t> ends;
    int64_t total_rows = 0;
    for (int64_t k = 0; k < branches; ++k) {
      int32_t t = h;
      const int64_t len = r.range(1, 3);
      for (int64_t j = 0; j < len; ++j) t = b.op("aten::convolution.out", {t}, r.range(8, 32), 32);
      ends.push_back(t);
      total_rows += b.rows(t);
    }
    h = b.op("aten::cat.out", ends, total_rows, 32);
  }
  b.output(h);
}

void residual(Builder& b) {
  Rng& r = b.rng();
  int64_t rows = r.range(16, 48);
  const int64_t cols = 64;
  int32_t h = b.input(rows, cols);
  while (!b.full()) {
    if (r.chance(0.15) && rows > 8) {
      rows = rows / 2 + 1;
      h = b.op("aten::max_pool2d.out", {h}, rows, cols * 2);
    }
    const int64_t width = b.cols(h);
    const int64_t expand = r.range(1, 4);
    int32_t a = b.op("aten::convolution.out", {h}, rows, width / 2 * expand);
    int32_t c = b.op("aten::relu.out", {a}, rows, width / 2 * expand);
    if (r.chance(0.5)) c = b.op("aten::convolution.out", {c}, rows, width / 2 * expand);
    int32_t d = b.op("aten::convolution.out", {c}, rows, width);
    h = b.op("aten::add.out", {d, h}, rows, width);
  }
  b.output(h);
}

void unet(Builder& b) {
  Rng& r = b.rng();
  const int64_t c0 = r.pick(std::vector<int64_t>{4, 8, 16});
  const int64_t hw0 = r.pick(std::vector<int64_t>{256, 1024});
  int32_t x = b.input(c0, hw0);
  while (!b.full()) {
    const int64_t depth = r.range(3, 5);
    std::vector<int32_t> skips;
    for (int64_t l = 0; l < depth; ++l) {
      const int64_t c = c0 << l, hw = std::max<int64_t>(hw0 >> (2 * l), 1);
      int32_t e = b.op("aten::convolution.out", {x}, c, hw);
      e = b.op("aten::relu.out", {e}, c, hw);
      skips.push_back(e);
      x = b.op("aten::max_pool2d.out", {e}, c, std::max<int64_t>(hw / 4, 1));
    }
    x = b.op("aten::convolution.out", {x}, b.rows(x) * 2, b.cols(x));
    for (int64_t l = depth - 1; l >= 0; --l) {
      const int32_t skip = skips[l];
      int32_t u = b.op("aten::upsample_nearest2d.out", {x}, b.rows(skip), b.cols(skip));
      int32_t c = b.op("aten::cat.out", {u, skip}, b.rows(skip) * 2, b.cols(skip));
      x = b.op("aten::convolution.out", {c}, b.rows(skip), b.cols(skip));
    }
  }
  b.output(x);
}

void attention(Builder& b) {
  Rng& r = b.rng();
  const int64_t seq = r.pick(std::vector<int64_t>{16, 32, 64});
  const int64_t d = r.pick(std::vector<int64_t>{32, 64});
  const int64_t heads = r.pick(std::vector<int64_t>{1, 2, 4});
  int32_t x = b.input(seq, d);
  while (!b.full()) {
    int32_t ln = b.op("aten::native_layer_norm.out", {x}, seq, d);
    int32_t q = b.op("aten::linear.out", {ln}, seq, d);
    int32_t k = b.op("aten::linear.out", {ln}, seq, d);
    int32_t v = b.op("aten::linear.out", {ln}, seq, d);
    int32_t s = b.op("aten::bmm.out", {q, k}, heads * seq, seq);
    int32_t p = b.op("aten::_softmax.out", {s}, heads * seq, seq);
    int32_t o = b.op("aten::bmm.out", {p, v}, seq, d);
    int32_t pr = b.op("aten::linear.out", {o}, seq, d);
    int32_t x1 = b.op("aten::add.out", {pr, x}, seq, d);
    int32_t ln2 = b.op("aten::native_layer_norm.out", {x1}, seq, d);
    int32_t f1 = b.op("aten::linear.out", {ln2}, seq, 4 * d);
    int32_t ge = b.op("aten::gelu.out", {f1}, seq, 4 * d);
    int32_t f2 = b.op("aten::linear.out", {ge}, seq, d);
    x = b.op("aten::add.out", {f2, x1}, seq, d);
  }
  b.output(x);
}

void random_dag(Builder& b, const GraphGenOptions& options) {
  Rng& r = b.rng();
  constexpr size_t kWindow = 8;  // most inputs come from the last few tensors, some from further
  const size_t far_window = std::max<size_t>(options.random_dag_reach, 1);
  std::vector<int32_t> all;
  const int64_t inputs = r.range(1, 4);
  for (int64_t i = 0; i < inputs; ++i) all.push_back(b.input(r.range(16, 64), 32));
  while (!b.full()) {
    const int64_t nin = r.range(1, 3);
    std::vector<int32_t> ins;
    for (int64_t i = 0; i < nin; ++i) {
      const size_t w = std::min(r.chance(0.75) ? kWindow : far_window, all.size());
      const int32_t t =
          all[all.size() - 1 - static_cast<size_t>(r.range(0, static_cast<int64_t>(w) - 1))];
      if (std::find(ins.begin(), ins.end(), t) == ins.end()) ins.push_back(t);
    }
    const int64_t nout = r.chance(0.8) ? 1 : 2;
    std::vector<int32_t> outs;
    for (int64_t i = 0; i < nout; ++i) outs.push_back(b.tensor(r.range(16, 64), 32));
    b.node("aten::random_op.out", ins, outs);
    all.insert(all.end(), outs.begin(), outs.end());
  }
  b.output(all.back());
  for (int k = 0; k < 2; ++k) {
    if (r.chance(0.5)) b.output(r.pick(all));
  }
}

}  // namespace

Graph generate_graph(const GraphGenOptions& options) {
  Builder b(options);
  switch (options.family) {
    case GraphFamily::kChain:
      chain(b);
      break;
    case GraphFamily::kFanOut:
      fan_out(b);
      break;
    case GraphFamily::kResidual:
      residual(b);
      break;
    case GraphFamily::kUNet:
      unet(b);
      break;
    case GraphFamily::kAttention:
      attention(b);
      break;
    case GraphFamily::kRandomDag:
      random_dag(b, options);
      break;
  }
  return b.take();
}

}  // namespace devplan
