// MethodMeta: a cheap, read-only view of one method of a loaded Program: its planned buffers
// (sizes and devices), inputs, outputs and backends. It points into the Program and lives no
// longer than it.
//
//   Result<MethodMeta> meta = program.method_meta("forward");
//   if (!meta.ok()) return meta.error();
//   for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
//     int64_t size = meta->memory_planned_buffer_size(i).value();     // 32, then 48
//     Device device = meta->memory_planned_buffer_device(i).value();  // cpu:0, then cuda:0
//   }
//
// Buffer indices are user-facing: buffer i is entry i + 1 of the file's non_const_buffer_sizes
// (entry 0 is reserved). Every lookup is O(1). Index errors are InvalidArgument naming the
// method and the index.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/scalar_type.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace devplan {

// What MethodMeta tells about an input or output tensor. The spans point into the Program.
struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
  uint64_t nbytes = 0;
  Device device;
  TensorStorage storage = TensorStorage::RuntimeBound;
};

class MethodMeta {
 public:
  // A view of `plan`, which must outlive the MethodMeta (Program::method_meta makes these).
  explicit MethodMeta(const MethodPlan& plan) : plan_(&plan) {}

  const char* name() const { return plan_->name.c_str(); }

  size_t num_inputs() const { return plan_->inputs.size(); }
  size_t num_outputs() const { return plan_->outputs.size(); }

  // The kind of value input/output `index` is (Tensor, Int, ...).
  Result<ValueTag> input_tag(size_t index) const;
  Result<ValueTag> output_tag(size_t index) const;

  // The tensor that input/output `index` is; InvalidArgument when the index is out of range or
  // the value is not a Tensor.
  Result<TensorMeta> input_tensor_meta(size_t index) const;
  Result<TensorMeta> output_tensor_meta(size_t index) const;

  // The number of memory-planned buffers (entries of non_const_buffer_sizes minus the reserved
  // entry 0; 0 when the list is absent).
  size_t num_memory_planned_buffers() const { return plan_->buffer_sizes.size(); }

  // Size in bytes of planned buffer `index`.
  Result<int64_t> memory_planned_buffer_size(size_t index) const;

  // The device planned buffer `index` lives on: its non_const_buffer_device entry, or cpu:0
  // when it has none.
  Result<Device> memory_planned_buffer_device(size_t index) const;

  // True when some planned buffer is not on the CPU.
  bool has_device_buffers() const { return plan_->has_device_buffers(); }

  // Instructions over all chains.
  size_t num_instructions() const;

  size_t num_backends() const { return plan_->delegates.size(); }
  // The backend id of delegate `index`.
  Result<const char*> backend_name(size_t index) const;
  // True when a delegate of this method has backend id `backend_id`.
  bool uses_backend(const std::string& backend_id) const;

  // The whole parsed method.
  const MethodPlan& plan() const { return *plan_; }

 private:
  Error index_error(const char* what, size_t index, size_t count) const;
  Result<TensorMeta> tensor_meta(const char* what, size_t index,
                                 const std::vector<int32_t>& list) const;

  const MethodPlan* plan_;
};

}  // namespace devplan
