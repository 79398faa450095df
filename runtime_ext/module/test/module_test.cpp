#include "module_test_support.h"

#include <malloc.h>

namespace devplan {
namespace {

using testing::ModuleTestBase;
using ModuleTest = ModuleTestBase;

TEST_F(ModuleTest, ReferenceDeviceProgramAllocatesOne48ByteBufferOnCuda0) {
  auto module = fixture_module("device_add_cuda0");
  Result<MethodMeta> meta = module->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  ASSERT_EQ(meta->num_memory_planned_buffers(), 2u);
  EXPECT_EQ(*meta->memory_planned_buffer_size(0), 32);
  EXPECT_EQ(*meta->memory_planned_buffer_device(0), Device::cpu());
  EXPECT_EQ(*meta->memory_planned_buffer_size(1), 48);
  EXPECT_EQ(*meta->memory_planned_buffer_device(1), Device::cuda(0));
  EXPECT_EQ(*module->get_mem_planned_buffer_sizes("forward"), (std::vector<int64_t>{32, 48}));

  ASSERT_TRUE(module->load_method("forward").ok());
  std::vector<AllocationRecord> ledger = tracking().ledger();
  ASSERT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger[0].seq, 1u);
  EXPECT_EQ(ledger[0].device, Device::cuda(0));
  EXPECT_EQ(ledger[0].size, 48u);
  EXPECT_EQ(ledger[0].alignment, 16u);
  EXPECT_EQ(ledger[0].owner, "forward/buffer 1");
  EXPECT_TRUE(ledger[0].live);
  EXPECT_EQ(tracking().stats(0).frees, 0u);

  // The device buffer the method uses is exactly that allocation.
  Result<const PlannedMemory*> memory = module->planned_memory("forward");
  ASSERT_TRUE(memory.ok());
  EXPECT_EQ((*memory)->buffer(1).data(), ledger[0].ptr);
  EXPECT_EQ((*memory)->device(1), Device::cuda(0));
  EXPECT_EQ((*memory)->buffer(0).size(), 32u);

  ASSERT_TRUE(module->unload_method("forward").ok());
  EXPECT_FALSE(module->is_method_loaded("forward"));
  EXPECT_EQ(tracking().stats(0).frees, 1u);
  EXPECT_EQ(tracking().live_count(), 0u);
  EXPECT_EQ(tracking().allocate_calls(), 1u);
}

TEST_F(ModuleTest, DestroyingTheModuleFreesExactlyOnce) {
  auto module = fixture_module("device_add_cuda0");
  ASSERT_TRUE(module->load_method("forward").ok());
  EXPECT_EQ(tracking().live_count(), 1u);
  module.reset();
  EXPECT_EQ(tracking().live_count(), 0u);
  EXPECT_EQ(tracking().stats(0).frees, 1u);
}

TEST_F(ModuleTest, CpuOnlyProgramsNeverCallTheDeviceAllocator) {
  for (const char* name : {"cpu_add"}) {
    auto module = fixture_module(name);
    ASSERT_TRUE(module->load_method("forward").ok()) << name;
    ASSERT_TRUE(module->unload_method("forward").ok());
  }
  Module add(std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte");
  ASSERT_TRUE(add.load_method("forward").ok());
  Module linear(std::string(DEVPLAN_SOURCE_DIR) +
                "/fixtures/executorch/linear_no_constant_segment.pte");
  ASSERT_TRUE(linear.load_method("forward").ok());
  EXPECT_EQ(tracking().allocate_calls(), 0u);
}

TEST_F(ModuleTest, MultiDeviceProgramAllocatesOnEachDevice) {
  auto module = fixture_module("multi_device");
  Result<MethodMeta> meta = module->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  ASSERT_TRUE(module->load_method("forward").ok());
  std::vector<AllocationRecord> expected;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    const Device d = *meta->memory_planned_buffer_device(i);
    if (d.is_cpu() || *meta->memory_planned_buffer_size(i) == 0) continue;
    AllocationRecord r;
    r.device = d;
    r.size = static_cast<size_t>(*meta->memory_planned_buffer_size(i));
    r.owner = "forward/buffer " + std::to_string(i);
    expected.push_back(r);
  }
  std::vector<AllocationRecord> ledger = tracking().ledger();
  ASSERT_EQ(ledger.size(), expected.size());
  bool saw_cuda0 = false, saw_cuda1 = false;
  for (size_t i = 0; i < ledger.size(); ++i) {
    EXPECT_EQ(ledger[i].device, expected[i].device);
    EXPECT_EQ(ledger[i].size, expected[i].size);
    EXPECT_EQ(ledger[i].owner, expected[i].owner);
    saw_cuda0 |= ledger[i].device == Device::cuda(0);
    saw_cuda1 |= ledger[i].device == Device::cuda(1);
  }
  EXPECT_TRUE(saw_cuda0);
  EXPECT_TRUE(saw_cuda1);
}

TEST_F(ModuleTest, ZeroSizeDeviceBufferMakesNoAllocatorCall) {
  auto module = fixture_module("zero_size_device_buffer");
  Result<MethodMeta> meta = module->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  ASSERT_EQ(meta->num_memory_planned_buffers(), 3u);
  EXPECT_EQ(*meta->memory_planned_buffer_size(2), 0);
  EXPECT_EQ(*meta->memory_planned_buffer_device(2), Device::cuda(1));
  ASSERT_TRUE(module->load_method("forward").ok());
  EXPECT_EQ(tracking().allocate_calls(), 1u);  // only the 48-byte cuda:0 buffer
  EXPECT_EQ(tracking().stats(1).total_allocations, 0u);
  Result<const PlannedMemory*> memory = module->planned_memory("forward");
  ASSERT_TRUE(memory.ok());
  EXPECT_TRUE((*memory)->buffer(2).empty());
  EXPECT_EQ((*memory)->num_device_allocations(), 1u);
}

TEST_F(ModuleTest, LoadingTwiceDoesNotAllocateTwice) {
  auto module = fixture_module("device_add_cuda0");
  ASSERT_TRUE(module->load_method("forward").ok());
  ASSERT_TRUE(module->load_method("forward").ok());
  EXPECT_EQ(tracking().allocate_calls(), 1u);
  EXPECT_TRUE(module->is_method_loaded("forward"));
}

TEST_F(ModuleTest, LoadUnloadReload) {
  auto module = fixture_module("device_add_cuda0");
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(module->load_method("forward").ok());
    EXPECT_EQ(tracking().live_count(), 1u);
    ASSERT_TRUE(module->unload_method("forward").ok());
    EXPECT_EQ(tracking().live_count(), 0u);
  }
  EXPECT_EQ(tracking().allocate_calls(), 3u);
  EXPECT_EQ(tracking().stats(0).frees, 3u);
  Error e = module->unload_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  EXPECT_EQ(e.message(), "method 'forward' is not loaded");
}

TEST_F(ModuleTest, TwoMethodsEachOwnTheirBuffers) {
  auto module = fixture_module("two_methods");
  Result<std::vector<std::string>> names = module->method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"cpu_forward", "device_forward"}));
  ASSERT_TRUE(module->load_method("cpu_forward").ok());
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  ASSERT_TRUE(module->load_method("device_forward").ok());
  ASSERT_EQ(tracking().live_count(), 1u);
  EXPECT_EQ(tracking().ledger()[0].owner, "device_forward/buffer 1");
  ASSERT_TRUE(module->unload_method("cpu_forward").ok());
  EXPECT_EQ(tracking().live_count(), 1u);
  ASSERT_TRUE(module->unload_method("device_forward").ok());
  EXPECT_EQ(tracking().live_count(), 0u);
}

TEST_F(ModuleTest, TwoModulesEachOwnTheirBuffers) {
  auto first = fixture_module("device_add_cuda0");
  auto second = fixture_module("device_add_cuda0");
  ASSERT_TRUE(first->load_method("forward").ok());
  ASSERT_TRUE(second->load_method("forward").ok());
  std::vector<AllocationRecord> ledger = tracking().ledger();
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_NE(ledger[0].ptr, ledger[1].ptr);
  first.reset();
  EXPECT_EQ(tracking().live_count(), 1u);
  EXPECT_FALSE(tracking().ledger()[0].live);
  EXPECT_TRUE(tracking().ledger()[1].live);
  second.reset();
  EXPECT_EQ(tracking().live_count(), 0u);
}

TEST_F(ModuleTest, ShareMemoryArenasWithDeviceBuffersIsNotSupported) {
  ModuleOptions options;
  options.share_memory_arenas = true;
  auto module = fixture_module("two_methods", options);
  Error e = module->load_method("device_forward");
  EXPECT_EQ(e.code(), ErrorCode::NotSupported);
  EXPECT_EQ(e.message(),
            "method 'device_forward': share_memory_arenas does not support device buffers "
            "(buffer 1 is on cuda:0)");
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  ASSERT_TRUE(module->load_method("cpu_forward").ok());
  EXPECT_EQ(tracking().allocate_calls(), 0u);
}

TEST_F(ModuleTest, ShareMemoryArenasCpuMethodsShareOneBuffer) {
  ProgramBuilder source = cpu_add_program_builder();
  MethodPlan second = source.method(0).plan();
  second.name = "forward2";
  ProgramBuilder builder;
  builder.add_method(source.method(0).plan());
  builder.add_method(second);
  ModuleOptions options;
  options.share_memory_arenas = true;
  Module module(builder.build(), options);
  ASSERT_TRUE(module.load_method("forward").ok());
  ASSERT_TRUE(module.load_method("forward2").ok());
  EXPECT_EQ(*module.planned_memory("forward"), nullptr);  // the arena is the Module's
  Method* a = *module.method("forward");
  Method* b = *module.method("forward2");
  EXPECT_EQ(a->value(a->plan().inputs[0]).tensor.data, b->value(b->plan().inputs[0]).tensor.data);
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  Result<std::vector<EValue>> out = module.execute("forward2", {});
  ASSERT_TRUE(out.ok()) << out.error();
}

// Each shared arena holds every byte of its buffer: a tensor at offset 0 sits at the start of
// the arena's allocation, whose usable size is at least the buffer's.
TEST_F(ModuleTest, ShareMemoryArenasHoldTheWholeBuffer) {
  for (uint64_t size : {uint64_t{16}, uint64_t{1000}, uint64_t{1024}, uint64_t{65536}}) {
    ProgramBuilder builder;
    MethodBuilder& m = builder.add_method("forward");
    const uint32_t buffer = m.add_buffer(size);
    const int32_t t = m.add_planned_tensor(TensorSpec::of(ScalarType::Byte, {4}), buffer, 0);
    m.set_outputs({t});
    ModuleOptions options;
    options.share_memory_arenas = true;
    Module module(builder.build(), options);
    ASSERT_TRUE(module.load_method("forward").ok());
    const void* base = (*module.method("forward"))->value(t).tensor.data;
    ASSERT_NE(base, nullptr);
    EXPECT_GE(malloc_usable_size(const_cast<void*>(base)), size) << size;
  }
}

TEST_F(ModuleTest, CallerSuppliedPlannedMemoryIsUsedAsGiven) {
  auto module = fixture_module("cpu_add");
  Result<std::vector<int64_t>> sizes = module->get_mem_planned_buffer_sizes("forward");
  ASSERT_TRUE(sizes.ok());
  std::vector<std::vector<uint8_t>> storage;
  std::vector<Span<uint8_t>> spans;
  std::vector<Device> devices;
  for (int64_t s : *sizes) {
    storage.emplace_back(static_cast<size_t>(s));
  }
  for (auto& s : storage) {
    spans.emplace_back(s.data(), s.size());
    devices.push_back(Device::cpu());
  }
  Result<HierarchicalAllocator> mine = HierarchicalAllocator::create(spans, devices);
  ASSERT_TRUE(mine.ok());
  ASSERT_TRUE(module->load_method("forward", &*mine).ok());
  Result<Method*> m = module->method("forward");
  ASSERT_TRUE(m.ok());
  const uint8_t* data = static_cast<const uint8_t*>((*m)->value(0).tensor.data);
  EXPECT_GE(data, storage[0].data());
  EXPECT_LT(data, storage[0].data() + storage[0].size());
  EXPECT_EQ(*module->planned_memory("forward"), nullptr);
}

TEST_F(ModuleTest, MissingMethodAndBadFile) {
  auto module = fixture_module("cpu_add");
  Error e = module->load_method("nope");
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  Module missing("/nonexistent/file.pte");
  e = missing.load_method("forward");
  EXPECT_NE(e.code(), ErrorCode::Ok);
  EXPECT_EQ(missing.load().code(), e.code());  // the first error is kept
  Module garbage(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  e = garbage.load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
}

TEST_F(ModuleTest, ExecuteTakesAtMostTheMethodsInputs) {
  auto module = fixture_module("device_add_cuda0");
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, c{0, 0, 0, 0};
  auto floats = [](std::vector<float>& data) {
    Tensor t;
    t.dtype = ScalarType::Float;
    t.sizes = {2, 2};
    t.data = data.data();
    t.nbytes = data.size() * sizeof(float);
    return EValue::from_tensor(t);
  };
  Result<std::vector<EValue>> out = module->execute("forward", {floats(a), floats(b), floats(c)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(out.error().message(), "method 'forward' takes 2 inputs, given 3");
  EXPECT_EQ(add_backend_.executions(), 0u);
  out = module->execute("forward", {floats(a), floats(b)});
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ(out->size(), 1u);
  Method* m = *module->method("forward");
  float result[4] = {};
  ASSERT_TRUE(m->copy_output_to_host(0, result, sizeof(result)).ok());
  EXPECT_EQ(std::vector<float>(result, result + 4), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(add_backend_.executions(), 1u);
}

}  // namespace
}  // namespace devplan
