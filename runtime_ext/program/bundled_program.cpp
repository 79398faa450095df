#include <runtime_ext/program/bundled_program.h>

#include <cstring>

#include <runtime_ext/schema/bundled_program_generated.h>

namespace devplan {
namespace {

namespace bp = devplan_bundled_flatbuffer;

Error invalid(const std::string& what) {
  return Error(ErrorCode::InvalidProgram, "bundled program: " + what);
}

std::string shape_text(ScalarType dtype, const std::vector<int32_t>& sizes) {
  std::string text = scalar_type_name(dtype) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

Result<BundledValue> read_value(const bp::Value* value, const std::string& where) {
  BundledValue out;
  if (value == nullptr) return invalid(where + ": missing");
  switch (value->val_type()) {
    case bp::ValueUnion::Int:
      out.tag = ValueTag::Int;
      out.int_value = value->val_as_Int()->int_val();
      return out;
    case bp::ValueUnion::Bool:
      out.tag = ValueTag::Bool;
      out.bool_value = value->val_as_Bool()->bool_val();
      return out;
    case bp::ValueUnion::Double:
      out.tag = ValueTag::Double;
      out.double_value = value->val_as_Double()->double_val();
      return out;
    case bp::ValueUnion::Tensor:
      break;
    default:
      return invalid(where + ": a value of unknown kind " +
                     std::to_string(static_cast<int>(value->val_type())));
  }
  const bp::Tensor* t = value->val_as_Tensor();
  out.tag = ValueTag::Tensor;
  out.dtype = static_cast<ScalarType>(t->scalar_type());
  const size_t element = element_size(out.dtype);
  if (element == 0) {
    return invalid(where + ": unknown dtype " + std::to_string(static_cast<int>(out.dtype)));
  }
  uint64_t numel = 1;
  if (t->sizes() != nullptr) {
    for (int32_t size : *t->sizes()) {
      if (size < 0) return invalid(where + ": negative size " + std::to_string(size));
      out.sizes.push_back(size);
      if (size != 0 && numel > UINT64_MAX / static_cast<uint64_t>(size)) {
        return invalid(where + ": the element count overflows");
      }
      numel *= static_cast<uint64_t>(size);
    }
  }
  if (t->dim_order() != nullptr)
    out.dim_order.assign(t->dim_order()->begin(), t->dim_order()->end());
  const size_t have = t->data() == nullptr ? 0 : t->data()->size();
  // Sub-byte dtypes (quint4x2, quint2x4) pack several elements to a byte: counted in bytes.
  const uint64_t want = numel > UINT64_MAX / element ? UINT64_MAX : numel * element;
  if (have != want) {
    return invalid(where + ": " + std::to_string(have) + " bytes of data for " +
                   shape_text(out.dtype, out.sizes) + " (" + std::to_string(want) + " expected)");
  }
  if (have > 0) out.data = Span<const uint8_t>(t->data()->data(), have);
  return out;
}

Result<std::vector<BundledValue>> read_values(
    const flatbuffers::Vector<flatbuffers::Offset<bp::Value>>* values, const std::string& where,
    const char* kind) {
  std::vector<BundledValue> out;
  if (values == nullptr) return out;
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(
        BundledValue v, read_value(values->Get(i), where + ": " + kind + " " + std::to_string(i)));
    out.push_back(v);
  }
  return out;
}

}  // namespace

bool is_bundled_program(Span<const uint8_t> bytes) {
  return bytes.size() >= 8 &&
         std::memcmp(bytes.data() + 4, BundledProgram::kFileIdentifier, 4) == 0;
}

Result<BundledProgram> BundledProgram::parse(Span<const uint8_t> bytes) {
  if (!is_bundled_program(bytes)) {
    return Error(ErrorCode::InvalidProgram, "not a bundled program: file identifier is not BP08");
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!bp::VerifyBundledProgramBuffer(verifier)) {
    return invalid("the " + std::to_string(bytes.size()) +
                   " bytes failed flatbuffer verification: truncated or corrupt");
  }
  const bp::BundledProgram* root = bp::GetBundledProgram(bytes.data());
  BundledProgram out;
  out.version = root->version();
  if (root->program() == nullptr || root->program()->size() == 0) {
    return invalid("it holds no program");
  }
  out.program = Span<const uint8_t>(root->program()->data(), root->program()->size());
  out.program_offset = static_cast<uint64_t>(root->program()->data() - bytes.data());
  if (root->method_test_suites() != nullptr) {
    for (const bp::BundledMethodTestSuite* suite : *root->method_test_suites()) {
      BundledTestSuite s;
      if (suite->method_name() != nullptr) s.method_name = suite->method_name()->str();
      if (suite->test_cases() != nullptr) {
        for (flatbuffers::uoffset_t c = 0; c < suite->test_cases()->size(); ++c) {
          const bp::BundledMethodTestCase* test = suite->test_cases()->Get(c);
          const std::string where =
              "test case " + std::to_string(c) + " of method '" + s.method_name + "'";
          BundledTestCase t;
          DEVPLAN_ASSIGN_OR_RETURN(t.inputs, read_values(test->inputs(), where, "input"));
          DEVPLAN_ASSIGN_OR_RETURN(t.expected_outputs,
                                   read_values(test->expected_outputs(), where, "expected output"));
          s.cases.push_back(std::move(t));
        }
      }
      out.suites.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace devplan
