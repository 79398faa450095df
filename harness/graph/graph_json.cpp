#include <harness/graph/graph_json.h>

#include <cstdint>
#include <limits>
#include <map>
#include <set>

namespace devplan {

namespace {

Error invalid(const std::string& message) { return Error(ErrorCode::InvalidArgument, message); }

// How error messages name a value's type: "null", "boolean", "integer" (int64 and uint64),
// "number" (a double), "string", "array", "object".
const char* type_name(const Json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  return v.type_name();
}

Error type_error(const char* expected, const Json& got) {
  return invalid(std::string("expected ") + expected + ", got " + type_name(got));
}

// Checked readers for untrusted documents: InvalidArgument naming what was found instead.
Result<bool> get_bool(const Json& v) {
  if (!v.is_boolean()) return type_error("a boolean", v);
  return v.get<bool>();
}

Result<int64_t> get_int64(const Json& v) {
  if (!v.is_number_integer()) return type_error("an integer", v);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return invalid("integer " + std::to_string(u) + " does not fit in int64");
    }
    return static_cast<int64_t>(u);
  }
  return v.get<int64_t>();
}

Result<uint64_t> get_uint64(const Json& v) {
  if (!v.is_number_integer()) return type_error("an integer", v);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  const int64_t i = v.get<int64_t>();
  if (i < 0) return invalid("expected a non-negative integer, got " + std::to_string(i));
  return static_cast<uint64_t>(i);
}

// The member named `key` of `object`, or nullptr (also when `object` is not an object).
const Json* member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// Rejects members of `object` not in `allowed`.
Error check_fields(const Json& object, std::initializer_list<const char*> allowed,
                   const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (!known) return invalid(where + "unknown field '" + it.key() + "'");
  }
  return Error::success();
}

class MethodReader {
 public:
  explicit MethodReader(const Json& json) : json_(json) {}

  Result<Graph> run() {
    if (!json_.is_object()) {
      return invalid(std::string("a method must be an object, got ") + type_name(json_));
    }
    if (const Json* name = member(json_, "name")) {
      if (!name->is_string()) return field_error("", "name", type_error("a string", *name));
      g_.name = name->get<std::string>();
    }
    where_ = "method '" + g_.name + "': ";
    DEVPLAN_RETURN_IF_ERROR(check_fields(
        json_, {"name", "alignment", "tensors", "inputs", "outputs", "nodes", "options"}, where_));
    if (const Json* a = member(json_, "alignment")) {
      Result<uint64_t> alignment = get_uint64(*a);
      if (!alignment.ok()) return field_error(where_, "alignment", alignment.error());
      g_.alignment = *alignment;
    }
    const Json* tensors = member(json_, "tensors");
    if (tensors == nullptr) return invalid(where_ + "missing field 'tensors'");
    if (!tensors->is_array())
      return field_error(where_, "tensors", type_error("an array", *tensors));
    for (size_t i = 0; i < tensors->size(); ++i) DEVPLAN_RETURN_IF_ERROR(tensor(i, (*tensors)[i]));
    DEVPLAN_RETURN_IF_ERROR(id_list(json_, "inputs", where_, &g_.inputs));
    DEVPLAN_RETURN_IF_ERROR(id_list(json_, "outputs", where_, &g_.outputs));
    if (const Json* nodes = member(json_, "nodes")) {
      if (!nodes->is_array()) return field_error(where_, "nodes", type_error("an array", *nodes));
      for (size_t k = 0; k < nodes->size(); ++k) DEVPLAN_RETURN_IF_ERROR(node(k, (*nodes)[k]));
    }
    if (const Json* options = member(json_, "options"))
      DEVPLAN_RETURN_IF_ERROR(read_options(*options));
    DEVPLAN_RETURN_IF_ERROR(validate_graph(g_));
    return std::move(g_);
  }

 private:
  static Error field_error(const std::string& where, const std::string& field, const Error& e) {
    return invalid(where + "field '" + field + "': " + e.message());
  }

  Error tensor(size_t i, const Json& t) {
    std::string where = where_ + "tensor " + std::to_string(i) + ": ";
    if (!t.is_object()) return invalid(where + type_error("an object", t).message());
    const Json* id_json = member(t, "id");
    if (id_json == nullptr) return invalid(where + "missing field 'id'");
    if (!id_json->is_string()) return field_error(where, "id", type_error("a string", *id_json));
    const std::string& id = id_json->get_ref<const std::string&>();
    where = where_ + "tensor '" + id + "': ";
    DEVPLAN_RETURN_IF_ERROR(check_fields(t, {"id", "dtype", "shape"}, where));
    const Json* dtype = member(t, "dtype");
    if (dtype == nullptr) return invalid(where + "missing field 'dtype'");
    if (!dtype->is_string()) return field_error(where, "dtype", type_error("a string", *dtype));
    Result<ScalarType> parsed_type = parse_scalar_type(dtype->get_ref<const std::string&>());
    if (!parsed_type.ok()) return invalid(where + parsed_type.error().message());
    const ScalarType type = *parsed_type;
    const Json* shape = member(t, "shape");
    if (shape == nullptr) return invalid(where + "missing field 'shape'");
    if (!shape->is_array()) return field_error(where, "shape", type_error("an array", *shape));
    std::vector<int64_t> dims;
    for (size_t d = 0; d < shape->size(); ++d) {
      Result<int64_t> dim = get_int64((*shape)[d]);
      if (!dim.ok())
        return invalid(where + "shape[" + std::to_string(d) + "]: " + dim.error().message());
      dims.push_back(*dim);
    }
    auto taken = ids_.find(id);
    if (taken != ids_.end()) {
      return invalid(where_ + "tensor id '" + id + "' is used by tensors " +
                     std::to_string(taken->second) + " and " + std::to_string(i));
    }
    ids_.emplace(id, g_.add_tensor(id, type, std::move(dims)));
    return Error::success();
  }

  // Reads the optional list of tensor ids `field` of `object` into `out`.
  Error id_list(const Json& object, const char* field, const std::string& where,
                std::vector<int32_t>* out) {
    const Json* list = member(object, field);
    if (list == nullptr) return Error::success();
    if (!list->is_array()) return field_error(where, field, type_error("an array", *list));
    for (size_t i = 0; i < list->size(); ++i) {
      const Json& id = (*list)[i];
      if (!id.is_string()) {
        return invalid(where + field + "[" + std::to_string(i) +
                       "]: " + type_error("a tensor id (string)", id).message());
      }
      const std::string& name = id.get_ref<const std::string&>();
      auto it = ids_.find(name);
      if (it == ids_.end()) {
        const std::string what = std::string(field) == "inputs" ? "input" : "output";
        return invalid(where + what + " '" + name + "' is not a declared tensor");
      }
      out->push_back(it->second);
    }
    return Error::success();
  }

  Error node(size_t k, const Json& n) {
    std::string where = where_ + "node " + std::to_string(k) + ": ";
    if (!n.is_object()) return invalid(where + type_error("an object", n).message());
    const Json* op = member(n, "op");
    const Json* delegate = member(n, "delegate");
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
      node.op = op->get<std::string>();
      where = where_ + "node " + std::to_string(k) + " (" + node.label() + "): ";
      DEVPLAN_RETURN_IF_ERROR(check_fields(n, {"op", "inputs", "outputs"}, where));
    } else {
      if (!delegate->is_string()) {
        return field_error(where, "delegate", type_error("a string", *delegate));
      }
      node.kind = NodeKind::Delegate;
      node.op = delegate->get<std::string>();
      where = where_ + "node " + std::to_string(k) + " (delegate " + node.op + "): ";
      DEVPLAN_RETURN_IF_ERROR(check_fields(n, {"delegate", "device", "inputs", "outputs"}, where));
      const Json* device = member(n, "device");
      if (device == nullptr) return invalid(where + "missing field 'device' (such as \"cuda:0\")");
      if (!device->is_string())
        return field_error(where, "device", type_error("a string", *device));
      Result<Device> parsed = parse_device(device->get_ref<const std::string&>());
      if (!parsed.ok()) return invalid(where + parsed.error().message());
      node.device = *parsed;
      where = where_ + "node " + std::to_string(k) + " (" + node.label() + "): ";
    }
    DEVPLAN_RETURN_IF_ERROR(id_list(n, "inputs", where, &node.inputs));
    DEVPLAN_RETURN_IF_ERROR(id_list(n, "outputs", where, &node.outputs));
    g_.nodes.push_back(std::move(node));
    return Error::success();
  }

  Error read_options(const Json& options) {
    const std::string where = where_ + "options: ";
    if (!options.is_object()) return invalid(where + type_error("an object", options).message());
    DEVPLAN_RETURN_IF_ERROR(check_fields(
        options, {"skip_h2d_for_method_inputs", "skip_d2h_for_method_outputs"}, where));
    for (auto it = options.begin(); it != options.end(); ++it) {
      Result<bool> b = get_bool(it.value());
      if (!b.ok()) return field_error(where, it.key(), b.error());
      if (it.key() == "skip_h2d_for_method_inputs") {
        g_.options.skip_h2d_for_method_inputs = *b;
      } else {
        g_.options.skip_d2h_for_method_outputs = *b;
      }
    }
    return Error::success();
  }

  const Json& json_;
  Graph g_;
  std::string where_ = "method 'forward': ";
  std::map<std::string, int32_t> ids_;
};

Json id_array(const Graph& g, const std::vector<int32_t>& list) {
  Json out = Json::array();
  for (int32_t t : list) {
    const bool ok = t >= 0 && static_cast<size_t>(t) < g.tensors.size();
    out.push_back(ok ? g.tensors[t].id : "#" + std::to_string(t));
  }
  return out;
}

}  // namespace

Result<Graph> graph_from_json(const Json& method) { return MethodReader(method).run(); }

Result<std::vector<Graph>> graphs_from_json(const Json& document) {
  if (!document.is_object()) {
    return invalid(std::string("expected a method object or {\"methods\": [...]}, got ") +
                   type_name(document));
  }
  std::vector<Graph> graphs;
  const Json* methods = member(document, "methods");
  if (methods == nullptr) {
    DEVPLAN_ASSIGN_OR_RETURN(Graph g, graph_from_json(document));
    graphs.push_back(std::move(g));
    return graphs;
  }
  DEVPLAN_RETURN_IF_ERROR(check_fields(document, {"methods"}, ""));
  if (!methods->is_array()) {
    return invalid(std::string("field 'methods': expected an array, got ") + type_name(*methods));
  }
  if (methods->empty()) return invalid("field 'methods' is empty");
  std::set<std::string> names;
  for (size_t i = 0; i < methods->size(); ++i) {
    Result<Graph> g = graph_from_json((*methods)[i]);
    if (!g.ok()) return g.error().with_context("methods[" + std::to_string(i) + "]");
    if (!names.insert(g->name).second) {
      return invalid("methods[" + std::to_string(i) + "]: method '" + g->name +
                     "' is defined twice");
    }
    graphs.push_back(std::move(*g));
  }
  return graphs;
}

Result<std::vector<Graph>> read_graphs(std::string_view text) {
  DEVPLAN_ASSIGN_OR_RETURN(Json doc, parse_json(text));
  return graphs_from_json(doc);
}

Result<std::vector<Graph>> read_graphs_file(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(Json doc, parse_json_file(path));
  Result<std::vector<Graph>> graphs = graphs_from_json(doc);
  if (!graphs.ok()) return graphs.error().with_context(path);
  return graphs;
}

Json graph_to_json(const Graph& g) {
  Json m = Json::object();
  m["name"] = g.name;
  m["alignment"] = g.alignment;
  Json tensors = Json::array();
  for (const GraphTensor& t : g.tensors) {
    Json tj = Json::object();
    tj["id"] = t.id;
    tj["dtype"] = scalar_type_name(t.dtype);
    Json shape = Json::array();
    for (int64_t d : t.shape) shape.push_back(d);
    tj["shape"] = std::move(shape);
    tensors.push_back(std::move(tj));
  }
  m["tensors"] = std::move(tensors);
  m["inputs"] = id_array(g, g.inputs);
  m["outputs"] = id_array(g, g.outputs);
  Json nodes = Json::array();
  for (const Node& n : g.nodes) {
    Json nj = Json::object();
    if (n.kind == NodeKind::Kernel) {
      nj["op"] = n.op;
    } else {
      nj["delegate"] = n.op;
      nj["device"] = n.device.to_string();
    }
    nj["inputs"] = id_array(g, n.inputs);
    nj["outputs"] = id_array(g, n.outputs);
    nodes.push_back(std::move(nj));
  }
  m["nodes"] = std::move(nodes);
  if (g.options.skip_h2d_for_method_inputs.has_value() ||
      g.options.skip_d2h_for_method_outputs.has_value()) {
    Json options = Json::object();
    if (g.options.skip_h2d_for_method_inputs.has_value()) {
      options["skip_h2d_for_method_inputs"] = *g.options.skip_h2d_for_method_inputs;
    }
    if (g.options.skip_d2h_for_method_outputs.has_value()) {
      options["skip_d2h_for_method_outputs"] = *g.options.skip_d2h_for_method_outputs;
    }
    m["options"] = std::move(options);
  }
  return m;
}

Json graphs_to_json(const std::vector<Graph>& graphs) {
  if (graphs.size() == 1) return graph_to_json(graphs[0]);
  Json methods = Json::array();
  for (const Graph& g : graphs) methods.push_back(graph_to_json(g));
  Json doc = Json::object();
  doc["methods"] = std::move(methods);
  return doc;
}

std::string write_graphs(const std::vector<Graph>& graphs, bool pretty) {
  return write_json(graphs_to_json(graphs), pretty);
}

}  // namespace devplan
