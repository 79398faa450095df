#include <harness/graph/graph_json.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include <harness/json/json.h>
#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/memory_plan.h>

namespace devplan {
namespace {

constexpr char kSample[] = R"({"name": "forward", "alignment": 16,
  "tensors": [{"id": "x", "dtype": "float32", "shape": [2, 2]},
              {"id": "y", "dtype": "float32", "shape": [2, 2]},
              {"id": "t0", "dtype": "float32", "shape": [2, 2]},
              {"id": "z", "dtype": "float32", "shape": [2, 2]}],
  "inputs": ["x", "y"], "outputs": ["z"],
  "nodes": [{"op": "aten::add.out", "inputs": ["x", "y"], "outputs": ["t0"]},
            {"delegate": "DeviceAddBackend", "device": "cuda:0", "inputs": ["t0", "y"], "outputs": ["z"]}],
  "options": {"skip_h2d_for_method_inputs": false, "skip_d2h_for_method_outputs": false}})";

// The sample with `from` replaced by `to` (which must occur once), read back: the error text.
std::string error_after(const std::string& from, const std::string& to) {
  std::string text = kSample;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  text.replace(at, from.size(), to);
  Result<std::vector<Graph>> g = read_graphs(text);
  if (g.ok()) return "ok";
  EXPECT_EQ(g.code(), ErrorCode::InvalidArgument);
  return g.error().message();
}

std::string error_of(const std::string& text) {
  Result<std::vector<Graph>> g = read_graphs(text);
  return g.ok() ? "ok" : g.error().message();
}

TEST(GraphJsonTest, ReadsTheSample) {
  Result<std::vector<Graph>> graphs = read_graphs(kSample);
  ASSERT_TRUE(graphs.ok()) << graphs.error();
  ASSERT_EQ(graphs->size(), 1u);
  const Graph& g = (*graphs)[0];
  EXPECT_EQ(g.name, "forward");
  EXPECT_EQ(g.alignment, 16u);
  ASSERT_EQ(g.tensors.size(), 4u);
  EXPECT_EQ(g.tensors[2].id, "t0");
  EXPECT_EQ(g.tensors[2].dtype, ScalarType::Float);
  EXPECT_EQ(g.tensors[2].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(g.tensors[2].nbytes, 16u);
  EXPECT_EQ(g.inputs, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(g.outputs, (std::vector<int32_t>{3}));
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].kind, NodeKind::Kernel);
  EXPECT_EQ(g.nodes[0].op, "aten::add.out");
  EXPECT_EQ(g.nodes[1].kind, NodeKind::Delegate);
  EXPECT_EQ(g.nodes[1].op, "DeviceAddBackend");
  EXPECT_EQ(g.nodes[1].device, Device::cuda(0));
  EXPECT_EQ(g.nodes[1].inputs, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(g.options.skip_h2d_for_method_inputs, std::optional<bool>(false));
  EXPECT_EQ(g.options.skip_d2h_for_method_outputs, std::optional<bool>(false));

  // And it plans: x, y, t0 on the host; t0 and y copied to cuda:0.
  Result<MethodMemoryPlan> plan = plan_method(g);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->num_h2d_copies, 2u);
  EXPECT_EQ(plan->num_d2h_copies, 1u);
}

TEST(GraphJsonTest, DefaultsAndMethodsList) {
  Result<std::vector<Graph>> graphs = read_graphs(R"({"methods": [
      {"tensors": []},
      {"name": "encode", "alignment": 64, "tensors": [{"id": "s", "dtype": "int64", "shape": []}],
       "inputs": ["s"], "outputs": ["s"]}]})");
  ASSERT_TRUE(graphs.ok()) << graphs.error();
  ASSERT_EQ(graphs->size(), 2u);
  EXPECT_EQ((*graphs)[0].name, "forward");
  EXPECT_EQ((*graphs)[0].alignment, 16u);
  EXPECT_TRUE((*graphs)[0].nodes.empty());
  EXPECT_FALSE((*graphs)[0].options.skip_h2d_for_method_inputs.has_value());
  EXPECT_EQ((*graphs)[1].name, "encode");
  EXPECT_EQ((*graphs)[1].alignment, 64u);
  EXPECT_EQ((*graphs)[1].tensors[0].nbytes, 8u);
}

TEST(GraphJsonTest, StructureErrorsNameTheNode) {
  EXPECT_EQ(error_after(R"("inputs": ["t0", "y"])", R"("inputs": ["q", "y"])"),
            "method 'forward': node 1 (delegate DeviceAddBackend on cuda:0): input 'q' is not a "
            "declared tensor");
  EXPECT_EQ(error_after(R"("outputs": ["t0"])", R"("outputs": ["nope"])"),
            "method 'forward': node 0 (aten::add.out): output 'nope' is not a declared tensor");
  // Produced twice.
  EXPECT_EQ(error_after(R"("outputs": ["z"]}])", R"("outputs": ["t0"]}])"),
            "method 'forward': node 1 (delegate DeviceAddBackend on cuda:0): output 't0' is "
            "produced twice (already by node 0 (aten::add.out))");
  // A cycle: node 0 reads z, which node 1 produces from node 0's output.
  EXPECT_EQ(error_after(R"("inputs": ["x", "y"], "outputs": ["t0"])",
                        R"("inputs": ["x", "z"], "outputs": ["t0"])"),
            "method 'forward': node 0 (aten::add.out): input 'z' is used before it is defined "
            "(produced by node 1 (delegate DeviceAddBackend on cuda:0); a cycle or a node out of "
            "order)");
  // Method lists.
  EXPECT_EQ(error_after(R"("inputs": ["x", "y"], "outputs": ["z"])",
                        R"("inputs": ["x", "w"], "outputs": ["z"])"),
            "method 'forward': input 'w' is not a declared tensor");
  EXPECT_EQ(error_after(R"("outputs": ["z"],)", R"("outputs": ["zz"],)"),
            "method 'forward': output 'zz' is not a declared tensor");
  EXPECT_EQ(error_after(R"("outputs": ["z"],)", R"("outputs": ["z", "z"],)"),
            "method 'forward': tensor 'z' is listed twice as a method output");
  // Duplicate tensor ids.
  EXPECT_EQ(error_after(R"({"id": "y", "dtype")", R"({"id": "x", "dtype")"),
            "method 'forward': tensor id 'x' is used by tensors 0 and 1");
}

TEST(GraphJsonTest, BadDevicesAreParsedStrictly) {
  const std::string where = "method 'forward': node 1 (delegate DeviceAddBackend): ";
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cuda:-1\""),
            where + "invalid device 'cuda:-1': index must be a number from 0 to 127");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cuda:x\""),
            where + "invalid device 'cuda:x': index must be a number from 0 to 127");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"CUDA\""),
            where + "invalid device 'CUDA': expected TYPE:INDEX such as cpu:0 or cuda:1");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"CUDA:0\""),
            where + "invalid device 'CUDA:0': unknown device type 'CUDA' (expected cpu or cuda)");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cuda:128\""),
            where + "invalid device 'cuda:128': index must be a number from 0 to 127");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cuda:01\""),
            where + "invalid device 'cuda:01': index has leading zeros");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cpu:1\""),
            where + "invalid device 'cpu:1': the CPU has only index 0");
  EXPECT_EQ(error_after("\"device\": \"cuda:0\",", ""),
            where + "missing field 'device' (such as \"cuda:0\")");
  EXPECT_EQ(error_after("\"cuda:0\"", "0"),
            where + "field 'device': expected a string, got integer");
  EXPECT_EQ(error_after("\"cuda:0\"", "\"cuda:127\""), "ok");
}

TEST(GraphJsonTest, TensorErrors) {
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32")", R"("id": "y", "dtype": "float33")"),
            "method 'forward': tensor 'y': unknown dtype 'float33'");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32")", R"("id": "y", "dtype": 6)"),
            "method 'forward': tensor 'y': field 'dtype': expected a string, got integer");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32", "shape": [2, -2])"),
            "method 'forward': tensor 'y': negative dimension -2 in shape float32[2, -2]");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32", "shape": [2, 2.5])"),
            "method 'forward': tensor 'y': shape[1]: expected an integer, got number");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32", "shape": "2x2")"),
            "method 'forward': tensor 'y': field 'shape': expected an array, got string");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32", "shape": [3000000000])"),
            "method 'forward': tensor 'y': dimension 3000000000 exceeds 2147483647 in shape "
            "float32[3000000000]");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32")"),
            "method 'forward': tensor 'y': missing field 'shape'");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "shape": [2, 2])"),
            "method 'forward': tensor 'y': missing field 'dtype'");
  EXPECT_EQ(error_after(R"({"id": "y", )", R"({"name": "y", )"),
            "method 'forward': tensor 1: missing field 'id'");
  EXPECT_EQ(error_after(R"({"id": "y", )", R"({"id": 3, )"),
            "method 'forward': tensor 1: field 'id': expected a string, got integer");
  EXPECT_EQ(error_after(R"("id": "y", "dtype": "float32", "shape": [2, 2])",
                        R"("id": "y", "dtype": "float32", "shape": [2, 2], "bytes": 16)"),
            "method 'forward': tensor 'y': unknown field 'bytes'");
  EXPECT_EQ(error_after(R"({"id": "y", "dtype": "float32", "shape": [2, 2]},)", "[],"),
            "method 'forward': tensor 1: expected an object, got array");
}

TEST(GraphJsonTest, NodeAndFieldTypeErrors) {
  EXPECT_EQ(
      error_after(R"({"op": "aten::add.out", )", R"({"op": "aten::add.out", "delegate": "B", )"),
      "method 'forward': node 0: has both 'op' (a kernel) and 'delegate' (a delegate call)");
  EXPECT_EQ(error_after(R"({"op": "aten::add.out", )", R"({"kernel": "aten::add.out", )"),
            "method 'forward': node 0: needs 'op' (a kernel) or 'delegate' (a delegate call)");
  EXPECT_EQ(error_after(R"({"op": "aten::add.out", )", R"({"op": 1, )"),
            "method 'forward': node 0: field 'op': expected a string, got integer");
  EXPECT_EQ(
      error_after(R"({"op": "aten::add.out", )", R"({"op": "aten::add.out", "device": "cuda:0", )"),
      "method 'forward': node 0 (aten::add.out): unknown field 'device'");
  EXPECT_EQ(
      error_after(R"("inputs": ["x", "y"], "outputs": ["t0"])",
                  R"("inputs": "x", "outputs": ["t0"])"),
      "method 'forward': node 0 (aten::add.out): field 'inputs': expected an array, got string");
  EXPECT_EQ(error_after(R"("inputs": ["x", "y"], "outputs": ["t0"])",
                        R"("inputs": ["x", 1], "outputs": ["t0"])"),
            "method 'forward': node 0 (aten::add.out): inputs[1]: expected a tensor id (string), "
            "got integer");
  EXPECT_EQ(error_after(R"("delegate": "DeviceAddBackend")", R"("delegate": null)"),
            "method 'forward': node 1: field 'delegate': expected a string, got null");
  EXPECT_EQ(error_after(R"("alignment": 16)", R"("alignment": "16")"),
            "method 'forward': field 'alignment': expected an integer, got string");
  EXPECT_EQ(error_after(R"("alignment": 16)", R"("alignment": -16)"),
            "method 'forward': field 'alignment': expected a non-negative integer, got -16");
  EXPECT_EQ(error_after(R"("alignment": 16)", R"("alignment": 24)"),
            "method 'forward': alignment 24 is not a power of two");
  EXPECT_EQ(error_after(R"("name": "forward")", R"("name": 7)"),
            "field 'name': expected a string, got integer");
  EXPECT_EQ(error_after(R"("name": "forward")", R"("name": "fwd", "extra": 1)"),
            "method 'fwd': unknown field 'extra'");
  EXPECT_EQ(error_after(R"("nodes": [)", R"("nodes": {}, "x": [)"),
            "method 'forward': unknown field 'x'");
  EXPECT_EQ(
      error_after(R"("skip_h2d_for_method_inputs": false)", R"("skip_h2d_for_method_inputs": 0)"),
      "method 'forward': options: field 'skip_h2d_for_method_inputs': expected a boolean, got "
      "integer");
  EXPECT_EQ(error_after(R"("skip_h2d_for_method_inputs": false)", R"("skip_h2d": true)"),
            "method 'forward': options: unknown field 'skip_h2d'");
  EXPECT_EQ(error_after(R"("tensors": [)", R"("tensorz": [)"),
            "method 'forward': unknown field 'tensorz'");
}

TEST(GraphJsonTest, DocumentErrors) {
  EXPECT_EQ(error_of("[]"), "expected a method object or {\"methods\": [...]}, got array");
  EXPECT_EQ(error_of("{}"), "method 'forward': missing field 'tensors'");
  EXPECT_EQ(error_of(R"({"tensors": 1})"),
            "method 'forward': field 'tensors': expected an array, got integer");
  EXPECT_EQ(error_of(R"({"methods": {}})"), "field 'methods': expected an array, got object");
  EXPECT_EQ(error_of(R"({"methods": []})"), "field 'methods' is empty");
  EXPECT_EQ(error_of(R"({"methods": [{"tensors": []}], "name": "x"})"), "unknown field 'name'");
  EXPECT_EQ(error_of(R"({"methods": [{"tensors": []}, {"tensors": []}]})"),
            "methods[1]: method 'forward' is defined twice");
  EXPECT_EQ(error_of(R"({"methods": [{"tensors": []}, 5]})"),
            "methods[1]: a method must be an object, got integer");
  EXPECT_EQ(error_of(R"({"methods": [{"name": "a", "tensors": [], "inputs": ["q"]}]})"),
            "methods[0]: method 'a': input 'q' is not a declared tensor");
  EXPECT_EQ(error_of(R"({"tensors": [],})"),
            "JSON parse error at line 1, column 16: expected a string key, got '}'");
}

TEST(GraphJsonTest, ReadsDocumentsBuiltInCodeWithExactIntegers) {
  Json method = {{"name", "encode"}, {"tensors", Json::array()}};
  method["tensors"].push_back({{"id", "s"}, {"dtype", "int64"}, {"shape", {3, 1}}});
  Result<Graph> g = graph_from_json(method);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->name, "encode");
  EXPECT_EQ(g->tensors[0].shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(g->tensors[0].nbytes, 24u);
  // An integer past int64 is named, not wrapped; a double is not an integer.
  method["tensors"][0]["shape"] = {UINT64_MAX};
  EXPECT_EQ(
      graph_from_json(method).error().message(),
      "method 'encode': tensor 's': shape[0]: integer 18446744073709551615 does not fit in int64");
  EXPECT_EQ(error_after(R"("alignment": 16)", R"("alignment": 16.0)"),
            "method 'forward': field 'alignment': expected an integer, got number");
}

TEST(GraphJsonTest, WritesInTheDocumentedForm) {
  Result<std::vector<Graph>> graphs = read_graphs(kSample);
  ASSERT_TRUE(graphs.ok());
  EXPECT_EQ(
      write_graphs(*graphs, false),
      R"({"name":"forward","alignment":16,"tensors":[{"id":"x","dtype":"float32","shape":[2,2]},)"
      R"({"id":"y","dtype":"float32","shape":[2,2]},{"id":"t0","dtype":"float32","shape":[2,2]},)"
      R"({"id":"z","dtype":"float32","shape":[2,2]}],"inputs":["x","y"],"outputs":["z"],)"
      R"("nodes":[{"op":"aten::add.out","inputs":["x","y"],"outputs":["t0"]},)"
      R"({"delegate":"DeviceAddBackend","device":"cuda:0","inputs":["t0","y"],"outputs":["z"]}],)"
      R"("options":{"skip_h2d_for_method_inputs":false,"skip_d2h_for_method_outputs":false}})");
  Graph bare;
  bare.add_tensor("t", ScalarType::Long, {});
  bare.outputs = {5};
  EXPECT_EQ(write_graphs({bare}, false),
            R"({"name":"forward","alignment":16,"tensors":[{"id":"t","dtype":"int64","shape":[]}],)"
            R"("inputs":[],"outputs":["#5"],"nodes":[]})");
}

TEST(GraphJsonTest, RoundTripsGeneratedGraphs) {
  std::vector<Graph> graphs;
  for (GraphFamily f : all_graph_families()) {
    GraphGenOptions o;
    o.family = f;
    o.num_tensors = 60;
    o.num_devices = 2;
    o.name = graph_family_name(f);
    graphs.push_back(generate_graph(o));
  }
  graphs[0].options.skip_d2h_for_method_outputs = true;
  graphs[1].alignment = 64;
  const std::string text = write_graphs(graphs);
  Result<std::vector<Graph>> back = read_graphs(text);
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->size(), graphs.size());
  EXPECT_EQ(write_graphs(*back), text);
  EXPECT_EQ((*back)[0].options.skip_d2h_for_method_outputs, std::optional<bool>(true));
  EXPECT_FALSE((*back)[0].options.skip_h2d_for_method_inputs.has_value());
  EXPECT_EQ((*back)[1].alignment, 64u);
  for (size_t i = 0; i < graphs.size(); ++i) {
    EXPECT_EQ((*back)[i].nodes.size(), graphs[i].nodes.size());
    EXPECT_EQ((*back)[i].tensors.size(), graphs[i].tensors.size());
    // The same plan either way.
    EXPECT_EQ(plan_method((*back)[i])->non_const_buffer_sizes(),
              plan_method(graphs[i])->non_const_buffer_sizes());
  }
}

TEST(GraphJsonTest, Files) {
  const std::string path = ::testing::TempDir() + "graph_json_test.json";
  {
    std::ofstream out(path);
    out << R"({"tensors": [{"id": "a", "dtype": "float32", "shape": [1]}], "outputs": ["a"]})";
  }
  Result<std::vector<Graph>> g = read_graphs_file(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message(),
            path +
                ": method 'forward': output 'a' is never defined (not a method input and "
                "produced by no node)");
  {
    std::ofstream out(path);
    out << kSample;
  }
  g = read_graphs_file(path);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->size(), 1u);
  std::remove(path.c_str());
  g = read_graphs_file(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(g.error().message(), "cannot open '" + path + "': No such file or directory");
}

}  // namespace
}  // namespace devplan
