#include <harness/graph/graph_json.h>

#include <map>
#include <set>

#include <harness/json/json_parser.h>
#include <harness/json/json_writer.h>

namespace devplan {

namespace {

Error invalid(const std::string& message) { return Error(ErrorCode::InvalidArgument, message); }

// Rejects members of `object` not in `allowed`.
Error check_fields(const JsonValue& object, std::initializer_list<const char*> allowed,
                   const std::string& where) {
  for (const JsonMember& m : object.as_object()) {
    bool known = false;
    for (const char* a : allowed) known = known || m.key == a;
    if (!known) return invalid(where + "unknown field '" + m.key + "'");
  }
  return Error::success();
}

class MethodReader {
 public:
  explicit MethodReader(const JsonValue& json) : json_(json) {}

  Result<Graph> run() {
    if (!json_.is_object()) {
      return invalid(std::string("a method must be an object, got ") + json_type_name(json_.type()));
    }
    if (const JsonValue* name = json_.find("name")) {
      if (!name->is_string()) return field_error("", "name", name->get_string().error());
      g_.name = name->as_string();
    }
    where_ = "method '" + g_.name + "': ";
    DEVPLAN_RETURN_IF_ERROR(check_fields(
        json_, {"name", "alignment", "tensors", "inputs", "outputs", "nodes", "options"}, where_));
    if (const JsonValue* a = json_.find("alignment")) {
      Result<uint64_t> alignment = a->get_uint64();
      if (!alignment.ok()) return field_error(where_, "alignment", alignment.error());
      g_.alignment = *alignment;
    }
    const JsonValue* tensors = json_.find("tensors");
    if (tensors == nullptr) return invalid(where_ + "missing field 'tensors'");
    if (!tensors->is_array()) return field_error(where_, "tensors", type_error("an array", *tensors));
    for (size_t i = 0; i < tensors->size(); ++i) DEVPLAN_RETURN_IF_ERROR(tensor(i, (*tensors)[i]));
    DEVPLAN_RETURN_IF_ERROR(id_list(json_, "inputs", where_, &g_.inputs));
    DEVPLAN_RETURN_IF_ERROR(id_list(json_, "outputs", where_, &g_.outputs));
    if (const JsonValue* nodes = json_.find("nodes")) {
      if (!nodes->is_array()) return field_error(where_, "nodes", type_error("an array", *nodes));
      for (size_t k = 0; k < nodes->size(); ++k) DEVPLAN_RETURN_IF_ERROR(node(k, (*nodes)[k]));
    }
    if (const JsonValue* options = json_.find("options")) DEVPLAN_RETURN_IF_ERROR(read_options(*options));
    DEVPLAN_RETURN_IF_ERROR(validate_graph(g_));
    return std::move(g_);
  }

 private:
  static Error type_error(const char* expected, const JsonValue& got) {
    return invalid(std::string("expected ") + expected + ", got " + json_type_name(got.type()));
  }

  static Error field_error(const std::string& where, const std::string& field, const Error& e) {
    return invalid(where + "field '" + field + "': " + e.message());
  }

  Error tensor(size_t i, const JsonValue& t) {
    std::string where = where_ + "tensor " + std::to_string(i) + ": ";
    if (!t.is_object()) return invalid(where + type_error("an object", t).message());
    const JsonValue* id = t.find("id");
    if (id == nullptr) return invalid(where + "missing field 'id'");
    if (!id->is_string()) return field_error(where, "id", type_error("a string", *id));
    where = where_ + "tensor '" + id->as_string() + "': ";
    DEVPLAN_RETURN_IF_ERROR(check_fields(t, {"id", "dtype", "shape"}, where));
    const JsonValue* dtype = t.find("dtype");
    if (dtype == nullptr) return invalid(where + "missing field 'dtype'");
    if (!dtype->is_string()) return field_error(where, "dtype", type_error("a string", *dtype));
    ScalarType type;
    if (!parse_scalar_type(dtype->as_string(), &type)) {
      return invalid(where + "unknown dtype '" + dtype->as_string() + "'");
    }
    const JsonValue* shape = t.find("shape");
    if (shape == nullptr) return invalid(where + "missing field 'shape'");
    if (!shape->is_array()) return field_error(where, "shape", type_error("an array", *shape));
    std::vector<int64_t> dims;
    for (size_t d = 0; d < shape->size(); ++d) {
      Result<int64_t> dim = (*shape)[d].get_int64();
      if (!dim.ok()) return invalid(where + "shape[" + std::to_string(d) + "]: " + dim.error().message());
      dims.push_back(*dim);
    }
    auto taken = ids_.find(id->as_string());
    if (taken != ids_.end()) {
      return invalid(where_ + "tensor id '" + id->as_string() + "' is used by tensors " +
                     std::to_string(taken->second) + " and " + std::to_string(i));
    }
    ids_.emplace(id->as_string(), g_.add_tensor(id->as_string(), type, std::move(dims)));
    return Error::success();
  }

  // Reads the optional list of tensor ids `field` of `object` into `out`.
  Error id_list(const JsonValue& object, const char* field, const std::string& where,
                std::vector<int32_t>* out) {
    const JsonValue* list = object.find(field);
    if (list == nullptr) return Error::success();
    if (!list->is_array()) return field_error(where, field, type_error("an array", *list));
    for (size_t i = 0; i < list->size(); ++i) {
      const JsonValue& id = (*list)[i];
      if (!id.is_string()) {
        return invalid(where + field + "[" + std::to_string(i) + "]: " +
                       type_error("a tensor id (string)", id).message());
      }
      auto it = ids_.find(id.as_string());
      if (it == ids_.end()) {
        const std::string what = std::string(field) == "inputs" ? "input" : "output";
        return invalid(where + what + " '" + id.as_string() + "' is not a declared tensor");
      }
      out->push_back(it->second);
    }
    return Error::success();
  }

  Error node(size_t k, const JsonValue& n) {
    std::string where = where_ + "node " + std::to_string(k) + ": ";
    if (!n.is_object()) return invalid(where + type_error("an object", n).message());
    const JsonValue* op = n.find("op");
    const JsonValue* delegate = n.find("delegate");
    if (op != nullptr && delegate != nullptr) {
      return invalid(where + "has both 'op' (a kernel) and 'delegate' (a delegate call)");
    }
    if (op == nullptr && delegate == nullptr) {
      return invalid(where + "needs 'op' (a kernel) or 'delegate' (a delegate call)");
    }
    Node node;
    if (op != nullptr) {
      if (!op->is_string()) return field_error(where, "op", type_error("a string", *op));
      node.kind = NodeKind::Kernel;
      node.op = op->as_string();
      where = where_ + "node " + std::to_string(k) + " (" + node.label() + "): ";
      DEVPLAN_RETURN_IF_ERROR(check_fields(n, {"op", "inputs", "outputs"}, where));
    } else {
      if (!delegate->is_string()) {
        return field_error(where, "delegate", type_error("a string", *delegate));
      }
      node.kind = NodeKind::Delegate;
      node.op = delegate->as_string();
      where = where_ + "node " + std::to_string(k) + " (delegate " + node.op + "): ";
      DEVPLAN_RETURN_IF_ERROR(check_fields(n, {"delegate", "device", "inputs", "outputs"}, where));
      const JsonValue* device = n.find("device");
      if (device == nullptr) return invalid(where + "missing field 'device' (such as \"cuda:0\")");
      if (!device->is_string()) return field_error(where, "device", type_error("a string", *device));
      Result<Device> parsed = parse_device(device->as_string());
      if (!parsed.ok()) return invalid(where + parsed.error().message());
      node.device = *parsed;
      where = where_ + "node " + std::to_string(k) + " (" + node.label() + "): ";
    }
    DEVPLAN_RETURN_IF_ERROR(id_list(n, "inputs", where, &node.inputs));
    DEVPLAN_RETURN_IF_ERROR(id_list(n, "outputs", where, &node.outputs));
    g_.nodes.push_back(std::move(node));
    return Error::success();
  }

  Error read_options(const JsonValue& options) {
    const std::string where = where_ + "options: ";
    if (!options.is_object()) return invalid(where + type_error("an object", options).message());
    DEVPLAN_RETURN_IF_ERROR(check_fields(
        options, {"skip_h2d_for_method_inputs", "skip_d2h_for_method_outputs"}, where));
    for (const JsonMember& m : options.as_object()) {
      Result<bool> b = m.value.get_bool();
      if (!b.ok()) return field_error(where, m.key, b.error());
      if (m.key == "skip_h2d_for_method_inputs") {
        g_.options.skip_h2d_for_method_inputs = *b;
      } else {
        g_.options.skip_d2h_for_method_outputs = *b;
      }
    }
    return Error::success();
  }

  const JsonValue& json_;
  Graph g_;
  std::string where_ = "method 'forward': ";
  std::map<std::string, int32_t> ids_;
};

JsonValue id_array(const Graph& g, const std::vector<int32_t>& list) {
  JsonValue out = JsonValue::array();
  for (int32_t t : list) {
    const bool ok = t >= 0 && static_cast<size_t>(t) < g.tensors.size();
    out.push_back(ok ? JsonValue(g.tensors[t].id) : JsonValue("#" + std::to_string(t)));
  }
  return out;
}

}  // namespace

Result<Graph> graph_from_json(const JsonValue& method) { return MethodReader(method).run(); }

Result<std::vector<Graph>> graphs_from_json(const JsonValue& document) {
  if (!document.is_object()) {
    return invalid(std::string("expected a method object or {\"methods\": [...]}, got ") +
                   json_type_name(document.type()));
  }
  std::vector<Graph> graphs;
  const JsonValue* methods = document.find("methods");
  if (methods == nullptr) {
    DEVPLAN_ASSIGN_OR_RETURN(Graph g, graph_from_json(document));
    graphs.push_back(std::move(g));
    return graphs;
  }
  DEVPLAN_RETURN_IF_ERROR(check_fields(document, {"methods"}, ""));
  if (!methods->is_array()) {
    return invalid(std::string("field 'methods': expected an array, got ") +
                   json_type_name(methods->type()));
  }
  if (methods->size() == 0) return invalid("field 'methods' is empty");
  std::set<std::string> names;
  for (size_t i = 0; i < methods->size(); ++i) {
    Result<Graph> g = graph_from_json((*methods)[i]);
    if (!g.ok()) return g.error().with_context("methods[" + std::to_string(i) + "]");
    if (!names.insert(g->name).second) {
      return invalid("methods[" + std::to_string(i) + "]: method '" + g->name + "' is defined twice");
    }
    graphs.push_back(std::move(*g));
  }
  return graphs;
}

Result<std::vector<Graph>> read_graphs(std::string_view text) {
  DEVPLAN_ASSIGN_OR_RETURN(JsonValue doc, parse_json(text));
  return graphs_from_json(doc);
}

Result<std::vector<Graph>> read_graphs_file(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(JsonValue doc, parse_json_file(path));
  Result<std::vector<Graph>> graphs = graphs_from_json(doc);
  if (!graphs.ok()) return graphs.error().with_context(path);
  return graphs;
}

JsonValue graph_to_json(const Graph& g) {
  JsonValue m = JsonValue::object();
  m.set("name", g.name);
  m.set("alignment", g.alignment);
  JsonValue tensors = JsonValue::array();
  for (const GraphTensor& t : g.tensors) {
    JsonValue tj = JsonValue::object();
    tj.set("id", t.id);
    tj.set("dtype", scalar_type_name(t.dtype));
    JsonValue shape = JsonValue::array();
    for (int64_t d : t.shape) shape.push_back(d);
    tj.set("shape", std::move(shape));
    tensors.push_back(std::move(tj));
  }
  m.set("tensors", std::move(tensors));
  m.set("inputs", id_array(g, g.inputs));
  m.set("outputs", id_array(g, g.outputs));
  JsonValue nodes = JsonValue::array();
  for (const Node& n : g.nodes) {
    JsonValue nj = JsonValue::object();
    if (n.kind == NodeKind::Kernel) {
      nj.set("op", n.op);
    } else {
      nj.set("delegate", n.op);
      nj.set("device", n.device.to_string());
    }
    nj.set("inputs", id_array(g, n.inputs));
    nj.set("outputs", id_array(g, n.outputs));
    nodes.push_back(std::move(nj));
  }
  m.set("nodes", std::move(nodes));
  if (g.options.skip_h2d_for_method_inputs.has_value() ||
      g.options.skip_d2h_for_method_outputs.has_value()) {
    JsonValue options = JsonValue::object();
    if (g.options.skip_h2d_for_method_inputs.has_value()) {
      options.set("skip_h2d_for_method_inputs", *g.options.skip_h2d_for_method_inputs);
    }
    if (g.options.skip_d2h_for_method_outputs.has_value()) {
      options.set("skip_d2h_for_method_outputs", *g.options.skip_d2h_for_method_outputs);
    }
    m.set("options", std::move(options));
  }
  return m;
}

JsonValue graphs_to_json(const std::vector<Graph>& graphs) {
  if (graphs.size() == 1) return graph_to_json(graphs[0]);
  JsonValue methods = JsonValue::array();
  for (const Graph& g : graphs) methods.push_back(graph_to_json(g));
  JsonValue doc = JsonValue::object();
  doc.set("methods", std::move(methods));
  return doc;
}

std::string write_graphs(const std::vector<Graph>& graphs, bool pretty) {
  JsonWriteOptions options;
  options.pretty = pretty;
  return write_json(graphs_to_json(graphs), options);
}

}  // namespace devplan
