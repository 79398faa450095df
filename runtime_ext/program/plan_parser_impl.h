// Internal to runtime_ext/program: PlanParser, which parse_method_plan (plan_parser.h) runs over
// one ExecutionPlan. Its parts, one concept per file:
//   plan_parser.cpp         the method walk: inputs, outputs, operators, delegates, chains and
//                           instructions, every value index range-checked;
//   plan_parser_values.cpp  values: scalars, lists and tensors (dtype, sizes, dim order, device);
//   plan_parser_memory.cpp  memory: the planned buffers and their devices, where each tensor's
//                           bytes live (its buffer range, constant data or initial value).
// Include it nowhere else.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/plan_parser.h>
#include <runtime_ext/schema/program_generated.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace devplan::internal {

class PlanParser {
 public:
  PlanParser(const ProgramContext& context, const devplan_flatbuffer::ExecutionPlan* plan,
             size_t index)
      : ctx_(context), plan_(plan), label_(method_label(plan, index)) {}

  // The MethodPlan, or InvalidProgram naming the method and the entry at fault.
  Result<MethodPlan> parse();

 private:
  template <typename T>
  using FbVector = flatbuffers::Vector<T>;

  // "1 value" / "3 values"; "1 entry" / "2 entries" with an explicit plural.
  static std::string count(size_t n, const std::string& singular, const std::string& plural = "");

  template <typename T>
  static size_t size_of(const FbVector<T>* v) {
    return v == nullptr ? 0 : v->size();
  }

  // The device a raw (type, index) of the file names (a buffer's, or a tensor's tag), read as
  // ExecuTorch reads it; a CPU index other than 0 reads as cpu:0. What is odd about it becomes a
  // note starting with `where`.
  enum class DeviceOf { Buffer, Tensor };
  Device read_device(int raw_type, int raw_index, const std::string& where, DeviceOf of);

  // ---- the method walk (plan_parser.cpp) ----------------------------------------------------

  Error invalid(const std::string& message) const;
  // Adds a note (MethodPlan::notes); past kMaxNotes they are counted, and parse() ends the list
  // with how many more there were (a hostile file could otherwise repeat one entry millions of
  // times).
  void note(std::string text);
  static constexpr size_t kMaxNotes = 100;

  // "value index 9 is out of range (6 values)" or "".
  std::string check_value_index(int64_t index) const;

  Error parse_value_indices(const char* what, const FbVector<int32_t>* list,
                            std::vector<int32_t>* out);
  // A chain's inputs or outputs, unchecked (ExecuTorch never reads them); those out of range
  // are noted.
  void read_chain_values(const std::string& where, const FbVector<int32_t>* list,
                         std::vector<int32_t>* out);
  Error parse_operators();
  Error parse_delegates();
  Error parse_chains();
  Error check_value_arg(const std::string& where, const char* field, int32_t index) const;
  Error parse_args(const FbVector<int32_t>* args, const std::string& where, InstructionInfo* out);
  Error parse_instruction(const devplan_flatbuffer::Instruction& instruction,
                          const std::string& where, InstructionInfo* out);

  // ---- values (plan_parser_values.cpp) ------------------------------------------------------

  Error parse_values();
  Error missing_table(const std::string& where, ValueTag tag) const;
  Error parse_value(const devplan_flatbuffer::EValue& ev, const std::string& where, ValueInfo* out);
  Error check_list_items(size_t index) const;
  Error parse_tensor(const devplan_flatbuffer::Tensor& t, const std::string& where,
                     TensorInfo* out);

  // ---- memory: planned buffers and tensor data (plan_parser_memory.cpp) ---------------------

  Error parse_buffers();
  Error parse_buffer_devices();

  // Where the tensor's bytes live (its TensorStorage), and for planned tensors and tensors
  // with data, their buffer range or data, range-checked.
  Error parse_storage(const devplan_flatbuffer::Tensor& t,
                      const devplan_flatbuffer::ExtraTensorInfo* extra, const std::string& where,
                      TensorInfo* out);

  Error parse_allocation(const devplan_flatbuffer::AllocationDetails& a, const std::string& where,
                         TensorInfo* out);
  Error find_constant(uint32_t data_buffer_idx, const std::string& where, TensorInfo* out);
  Error find_initial_value(uint32_t data_buffer_idx, uint64_t segments_idx,
                           const std::string& where, TensorInfo* out);

  const ProgramContext& ctx_;
  const devplan_flatbuffer::ExecutionPlan* plan_;
  const std::string label_;
  MethodPlan out_;
  size_t num_size_entries_ = 0;
  size_t num_values_ = 0;
  std::vector<bool> nameless_operator_;  // per operator: it has no name, so no call may name it
  size_t notes_left_out_ = 0;
};

}  // namespace devplan::internal
