// Graph generator: seeded structured and random method graphs for tests, property tests, the
// fuzzer and the planner benchmark (library devplan_graph_gen).
//
// Families:
//   chain      one op after another; each intermediate feeds only the next op.
//   fan_out    blocks where one tensor feeds several short branches that a concat joins.
//   residual   bottleneck blocks: a few ops then an add with the block's input.
//   unet       encoder levels whose outputs are kept (skips) until the decoder level that
//              concatenates them; several U-Nets in sequence for large sizes.
//   attention  transformer layers: q, k, v projections, scores, softmax, weighted sum,
//              projection, residual add, then an MLP with its own residual add.
//   random_dag ops that read 1 to 3 earlier tensors (three in four among the last 8, the rest
//              among the last random_dag_reach) and produce 1 or 2 tensors of comparable
//              sizes (2 to 8 KiB), so lifetimes interleave; up to two earlier tensors are
//              extra method outputs and live to the end.
// With num_devices > 0 some nodes become delegates on cuda:0..cuda:(num_devices - 1), in runs
// (a node tends to keep its predecessor's device).
//
//   GraphGenOptions o;
//   o.family = GraphFamily::kUNet;
//   o.num_tensors = 1000;
//   o.seed = 7;
//   o.num_devices = 2;
//   Graph g = generate_graph(o);   // same options, same graph; always passes validate_graph
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/graph.h>

namespace devplan {

enum class GraphFamily : uint8_t { kChain, kFanOut, kResidual, kUNet, kAttention, kRandomDag };

// "chain", "fan_out", "residual", "unet", "attention", "random_dag".
const char* graph_family_name(GraphFamily family);

// Parses a name produced by graph_family_name; InvalidArgument listing the names otherwise.
Result<GraphFamily> parse_graph_family(const std::string& name);

// Every family, in the order above.
std::vector<GraphFamily> all_graph_families();

struct GraphGenOptions {
  GraphFamily family = GraphFamily::kRandomDag;
  size_t num_tensors = 100;  // the graph has at least this many tensors (and at least 2), and
                             // exceeds it by less than one block of its family
  uint64_t seed = 1;
  int num_devices = 0;             // CUDA devices delegates may target; 0: kernels only
  double delegate_fraction = 0.3;  // share of nodes that are delegates when num_devices > 0
  size_t random_dag_reach = 16;    // random_dag: how many recent tensors an input may reach back
  std::string name = "forward";
};

// A valid graph (validate_graph passes) of float32 tensors; deterministic in the options.
Graph generate_graph(const GraphGenOptions& options);

}  // namespace devplan
