// Graph JSON: reads method graphs for the planner from JSON and writes them back.
//
// A method:
//   {"name": "forward", "alignment": 16,
//    "tensors": [{"id": "x", "dtype": "float32", "shape": [2, 2]}, ...],
//    "inputs": ["x", "y"], "outputs": ["z"],
//    "nodes": [{"op": "aten::add.out", "inputs": ["x", "y"], "outputs": ["t0"]},
//              {"delegate": "DeviceAddBackend", "device": "cuda:0",
//               "inputs": ["t0", "y"], "outputs": ["z"]}],
//    "options": {"skip_h2d_for_method_inputs": false, "skip_d2h_for_method_outputs": false}}
// A file holds one method object or {"methods": [method, ...]}.
//
// Fields: "tensors" is required, every other method field is optional ("name" defaults to
// "forward", "alignment" to 16, lists to empty, options to unset). A tensor needs "id",
// "dtype" (a name from scalar_type_name: "float32", "int64", ...) and "shape" (integers). A
// node is a kernel ("op") or a delegate ("delegate" plus a required "device" such as "cuda:0",
// parsed strictly by parse_device); "inputs" and "outputs" name tensors and default to empty.
// Unknown fields and fields of the wrong JSON type are errors. After reading, the graph must
// pass validate_graph (tensors produced twice, cycles and use before definition, negative
// shapes, ...). Every error is InvalidArgument and names the method and the node (by index and
// op) or tensor at fault.
//
//   Result<std::vector<Graph>> graphs = read_graphs_file("model.json");
//   std::string text = write_graphs(*graphs);   // reads back to the same graphs
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <harness/json/json.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/graph.h>

namespace devplan {

// Reads one method object.
Result<Graph> graph_from_json(const Json& method);

// Reads a document: a method object, or {"methods": [...]} with at least one method and no
// two methods of the same name.
Result<std::vector<Graph>> graphs_from_json(const Json& document);

// Parses JSON text (parse_json's errors) and reads it with graphs_from_json.
Result<std::vector<Graph>> read_graphs(std::string_view text);

// Reads the file at `path` (parse_json_file's errors, prefixed with the path).
Result<std::vector<Graph>> read_graphs_file(const std::string& path);

// The method object for `graph` (tensor indices must be in range; an index that is not is
// written as "#<index>"). Fields in the order shown above; "options" only when one is set.
Json graph_to_json(const Graph& graph);

// One graph: its method object; otherwise {"methods": [...]}.
Json graphs_to_json(const std::vector<Graph>& graphs);

// write_json(graphs_to_json(graphs)), pretty by default.
std::string write_graphs(const std::vector<Graph>& graphs, bool pretty = true);

}  // namespace devplan
