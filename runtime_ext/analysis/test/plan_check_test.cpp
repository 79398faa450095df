// check_method_plan and value_lifetimes over written programs: lifetimes by the rules of
// plan_check.h, lower bounds, views (aliases) and overlaps. The `devplan check` command's
// output over the same programs is tested in harness/test/check_command_test.cpp.
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

TEST(PlanCheckTest, LifetimesFollowTheRule) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  int32_t steps = 0;
  std::vector<Lifetime> life = value_lifetimes(source.method(0).plan(), &steps);
  EXPECT_EQ(steps, 4);
  // a: input, last use at the first h2d (step 0); b: input, used at step 1.
  EXPECT_EQ(life[0].first, 0);
  EXPECT_EQ(life[0].last, 0);
  EXPECT_EQ(life[1].first, 0);
  EXPECT_EQ(life[1].last, 1);
  EXPECT_EQ(life[2].first, 0);  // a_dev: h2d out at 0, delegate input at 2
  EXPECT_EQ(life[2].last, 2);
  EXPECT_EQ(life[3].first, 1);
  EXPECT_EQ(life[3].last, 2);
  EXPECT_EQ(life[4].first, 2);  // the delegate's output, read by the d2h at 3
  EXPECT_EQ(life[4].last, 3);
  EXPECT_EQ(life[5].first, 3);  // the output lives to the end
  EXPECT_EQ(life[5].last, 3);
}

// The exporter's aten::index with a None index: item -1 of an OptionalTensorList names no value.
TEST(PlanCheckTest, NoneItemsOfAnOptionalTensorListNameNothing) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(64);
  const int32_t x = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 4}), host, 0);
  const int32_t idx = m.add_planned_tensor(TensorSpec::of(ScalarType::Long, {2}), host, 32);
  const int32_t indices = m.add_optional_tensor_list({-1, idx});
  const int32_t out = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 48);
  m.add_chain();
  m.add_kernel_call("aten::index", "Tensor_out", {x, indices, out, out});
  m.set_inputs({x, idx});
  m.set_outputs({out});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_EQ(c.num_steps, 1);
  EXPECT_EQ(c.lifetimes[indices].first, 0);
  EXPECT_EQ(c.lifetimes[idx].first, 0);
  EXPECT_EQ(c.lifetimes[idx].last, 0);
  EXPECT_EQ(c.lifetimes[out].first, 0);
  EXPECT_TRUE(c.overlaps.empty());
  EXPECT_EQ(c.buffers[0].lower_bound, 64u);  // x, idx and out at step 0
  (void)x;
}

TEST(PlanCheckTest, ReferenceProgramIsCleanWithItsLowerBounds) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodCheck c = check_method_plan(source.method(0).plan());
  EXPECT_TRUE(c.overlaps.empty());
  ASSERT_EQ(c.buffers.size(), 2u);
  EXPECT_EQ(c.buffers[0].lower_bound, 32u);
  EXPECT_EQ(c.buffers[0].size, 32u);
  EXPECT_EQ(c.buffers[1].lower_bound, 48u);
  EXPECT_EQ(c.buffers[1].device, Device::cuda(0));
}

TEST(PlanCheckTest, AViewOfAnInPlaceResultHasThatResultAsItsBase) {
  // cpu: a [0,16) input; t = add(a, a) written into a's bytes at step 0; v = view of bytes
  // [0,8), written by nothing, read at step 1. At step 1 the bytes hold t (written at step 0,
  // after the input a): v is a view of t, and a lives only to its last read. a and t still
  // share bytes at step 0, where a is read and t written: an overlap.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(16);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t v = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 0);
  const int32_t t = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t u = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 8);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  m.add_kernel_call("aten::add", "out", {a, a, alpha, t, t});
  m.add_kernel_call("aten::add", "out", {v, v, alpha, u, u});
  m.set_inputs({a});
  m.set_outputs({t, u});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_EQ(c.alias_of[v], t);
  EXPECT_EQ(c.lifetimes[a].first, 0);
  EXPECT_EQ(c.lifetimes[a].last, 0);
  EXPECT_EQ(c.lifetimes[t].first, 0);
  EXPECT_EQ(c.lifetimes[t].last, 1);
  EXPECT_TRUE(c.warnings.empty());
  ASSERT_EQ(c.overlaps.size(), 2u);  // a with t at step 0, and t with u (bytes [8,16)) at 1
  EXPECT_EQ(c.overlaps[0].value_a, a);
  EXPECT_EQ(c.overlaps[0].value_b, t);
  EXPECT_EQ(c.overlaps[0].first_step, 0);
  EXPECT_EQ(c.overlaps[0].last_step, 0);
  EXPECT_EQ(c.overlaps[1].value_a, t);
  EXPECT_EQ(c.overlaps[1].value_b, u);
  EXPECT_EQ(c.overlaps[1].first_step, 1);
  EXPECT_EQ(c.overlaps[1].last_step, 1);
}

// Builders for the view-base tests: one host buffer of 1 KiB, float tensors of `n` elements at a
// byte offset, and `add.out(a, a, 1, out)` steps.
struct ViewMethod {
  ProgramBuilder builder;
  MethodBuilder* m = nullptr;
  uint32_t host = 0;
  int32_t alpha = -1;
  ViewMethod() {
    m = &builder.add_method("forward");
    host = m->add_buffer(1024);
    alpha = m->add_int(1);
    m->add_chain();
  }
  int32_t tensor(int32_t n, uint64_t offset) {
    return m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {n}), host, offset);
  }
  // Reads `a` and writes `out`.
  void add(int32_t a, int32_t out) {
    m->add_kernel_call("aten::add", "out", {a, a, alpha, out, out});
  }
  MethodCheck check() const { return check_method_plan(builder.method(0).plan()); }
};

// The shape of a real exporter's program (a quantized CNN): a 64 B view v lies inside the bytes
// of a large tensor L, written first and last read at step 1, and of a small tensor S written at
// step 2, just before v's first use at step 3. S holds the bytes then: S is the base, L keeps
// its own lifetime, and nothing overlaps.
TEST(PlanCheckViewBaseTest, TheTensorWrittenLastBeforeTheFirstUseIsTheBase) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);     // input, [512, 528)
  const int32_t big = f.tensor(64, 0);    // L: [0, 256)
  const int32_t y = f.tensor(64, 256);    // [256, 512)
  const int32_t small = f.tensor(32, 0);  // S: [0, 128)
  const int32_t v = f.tensor(16, 64);     // the view: [64, 128)
  const int32_t z = f.tensor(16, 600);    // [600, 664)
  f.add(x, big);                          // step 0
  f.add(big, y);                          // step 1: L's last read
  f.add(y, small);                        // step 2
  f.add(v, z);                            // step 3: the view's first use
  f.m->set_inputs({x});
  f.m->set_outputs({z});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], small);
  EXPECT_EQ(c.lifetimes[big].first, 0);
  EXPECT_EQ(c.lifetimes[big].last, 1);
  EXPECT_EQ(c.lifetimes[small].first, 2);
  EXPECT_EQ(c.lifetimes[small].last, 3);
  EXPECT_EQ(c.lifetimes[v].first, 3);
  EXPECT_EQ(c.lifetimes[v].last, 3);
  EXPECT_FALSE(c.mutable_buffer[v]);
  EXPECT_TRUE(c.overlaps.empty());
  EXPECT_TRUE(c.warnings.empty());
  // Step 1: L and y (512 B); the view does not count.
  EXPECT_EQ(c.buffers[0].lower_bound, 512u);
}

// The shape of a real Cortex-M keyword-spotting model: a 256 B tensor that no instruction writes
// is passed to instruction 2 (a quantized average pooling kernel's scratch memory), next to its
// 64 B output; both lie inside a tensor D last read at instruction 1. Read as a view of D, it
// would keep D alive to instruction 2, over the output; read as scratch, nothing overlaps. No
// instruction says which: a note, not an overlap, and the lower bound counts the scratch at
// instruction 2, not D.
TEST(PlanCheckViewBaseTest, ScratchInsideADeadTensorIsANoteNotAnOverlap) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);       // input [512, 528)
  const int32_t d = f.tensor(80, 0);        // D: [0, 320), written at 0, last read at 1
  const int32_t y = f.tensor(4, 600);       // [600, 616)
  const int32_t scratch = f.tensor(64, 0);  // [0, 256)
  const int32_t out = f.tensor(16, 256);    // [256, 320)
  f.add(x, d);                              // 0
  f.add(d, y);                              // 1
  f.m->add_kernel_call("cortex_m::quantized_avg_pool2d", "out", {y, scratch, out, out});  // 2
  f.m->set_inputs({x});
  f.m->set_outputs({out});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[scratch], d);  // the view reading, for plots and replanning
  EXPECT_EQ(c.lifetimes[d].last, 2);
  EXPECT_TRUE(c.overlaps.empty());
  EXPECT_TRUE(c.warnings.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  const std::string sd = std::to_string(scratch), dd = std::to_string(d);
  EXPECT_EQ(c.notes[0], "values " + dd + " [0, 320) and " + std::to_string(out) +
                            " [256, 320) of buffer 0 share bytes during instructions 2..2 only "
                            "if value " +
                            sd +
                            " [0, 256), which no instruction writes, is a view "
                            "of value " +
                            dd + " (it keeps value " + dd +
                            " live to instruction "
                            "2); read as scratch memory of instructions 2..2, it is not. No "
                            "instruction says which: not an overlap");
  // x and D, D and y, then y, the scratch and the output: 336 B at every step (the view reading
  // would have D, y and the output at instruction 2: 400 B, more than such a plan needs).
  EXPECT_EQ(c.buffers[0].lower_bound, 336u);
}

// A tensor live at a view's own instructions, over the view's bytes, conflicts with it under
// both readings: an overlap with the view itself (besides the one with its base, written over
// that tensor's live bytes), and no note.
TEST(PlanCheckViewBaseTest, ATensorLiveOverAViewsBytesAtItsUseIsAnOverlap) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);     // input
  const int32_t other = f.tensor(8, 40);  // [40, 72), written at 0, read at 3
  const int32_t base = f.tensor(32, 0);   // [0, 128), written at 1, read through the view only
  const int32_t v = f.tensor(8, 32);      // [32, 64)
  const int32_t o = f.tensor(4, 600);
  const int32_t o2 = f.tensor(4, 700);
  f.add(x, other);   // 0
  f.add(x, base);    // 1
  f.add(v, o);       // 2: the view's first use
  f.add(other, o2);  // 3
  f.m->set_inputs({x});
  f.m->set_outputs({o, o2});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], base);
  EXPECT_TRUE(c.warnings.empty());
  ASSERT_EQ(c.overlaps.size(), 2u);
  EXPECT_EQ(c.overlaps[0].value_a, other);
  EXPECT_EQ(c.overlaps[0].value_b, base);
  EXPECT_EQ(c.overlaps[0].first_step, 1);
  EXPECT_EQ(c.overlaps[0].last_step, 1);
  EXPECT_EQ(c.overlaps[1].value_a, other);
  EXPECT_EQ(c.overlaps[1].value_b, v);
  EXPECT_EQ(c.overlaps[1].first_step, 2);
  EXPECT_EQ(c.overlaps[1].last_step, 2);
  EXPECT_TRUE(c.notes.empty());
}

// Two written tensors hold the view's bytes and are both live at its first use (they overlap
// each other, a finding of its own): the one written more recently is the base.
TEST(PlanCheckViewBaseTest, OfTwoLiveCandidatesTheMoreRecentlyWrittenIsTheBase) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);
  const int32_t p = f.tensor(32, 0);  // [0, 128), written at 0, read at 3
  const int32_t q = f.tensor(16, 0);  // [0, 64), written at 1
  const int32_t v = f.tensor(8, 32);  // [32, 64)
  const int32_t o1 = f.tensor(4, 600);
  const int32_t o2 = f.tensor(4, 700);
  f.add(x, p);   // 0
  f.add(x, q);   // 1
  f.add(v, o1);  // 2: first use of v
  f.add(p, o2);  // 3
  f.m->set_inputs({x});
  f.m->set_outputs({o1, o2});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], q);
  EXPECT_EQ(c.lifetimes[q].first, 1);
  EXPECT_EQ(c.lifetimes[q].last, 2);
  EXPECT_EQ(c.lifetimes[p].first, 0);
  EXPECT_EQ(c.lifetimes[p].last, 3);
  // p and q overlap where q is written over p's live bytes (its own lifetime); the view reading
  // has the same pair, so there is no note.
  ASSERT_EQ(c.overlaps.size(), 1u);
  EXPECT_EQ(c.overlaps[0].value_a, p);
  EXPECT_EQ(c.overlaps[0].value_b, q);
  EXPECT_EQ(c.overlaps[0].first_step, 1);
  EXPECT_EQ(c.overlaps[0].last_step, 1);
  EXPECT_TRUE(c.notes.empty());
}

// Candidates written by one instruction (a delegate's two outputs): the one still used at the
// view's first use or later wins; when neither is, the smaller.
TEST(PlanCheckViewBaseTest, CandidatesWrittenTogetherPreferTheLiveOneThenTheSmaller) {
  for (const bool p_read_later : {true, false}) {
    ViewMethod f;
    const int32_t x = f.tensor(4, 512);
    const int32_t p = f.tensor(32, 0);  // [0, 128)
    const int32_t q = f.tensor(16, 0);  // [0, 64)
    const int32_t v = f.tensor(8, 32);  // [32, 64)
    const int32_t o1 = f.tensor(4, 600);
    const int32_t o2 = f.tensor(4, 700);
    const int32_t delegate = f.m->add_delegate("SomeBackend", {'x'}, {});
    f.m->add_delegate_call(delegate, {x, p, q});  // 0: writes p and q
    f.add(v, o1);                                 // 1: first use of v
    f.m->set_outputs({o1});
    if (p_read_later) {
      f.add(p, o2);  // 2
      f.m->set_outputs({o1, o2});
    }
    f.m->set_inputs({x});
    const MethodCheck c = f.check();
    SCOPED_TRACE(p_read_later ? "p read at step 2" : "neither read after step 0");
    EXPECT_EQ(c.alias_of[v], p_read_later ? p : q);
    EXPECT_EQ(c.lifetimes[v].first, 1);
    const int32_t base = p_read_later ? p : q;
    EXPECT_EQ(c.lifetimes[base].first, 0);
    EXPECT_EQ(c.lifetimes[base].last, p_read_later ? 2 : 1);
  }
}

// Nested candidates: whichever of the outer and the inner tensor was written later is the base,
// whatever their sizes.
TEST(PlanCheckViewBaseTest, NestedCandidatesTheLaterWrittenIsTheBase) {
  for (const bool inner_last : {true, false}) {
    ViewMethod f;
    const int32_t x = f.tensor(4, 512);
    const int32_t outer = f.tensor(64, 0);   // [0, 256)
    const int32_t inner = f.tensor(16, 64);  // [64, 128)
    const int32_t v = f.tensor(4, 80);       // [80, 96)
    const int32_t o = f.tensor(4, 600);
    const int32_t o2 = f.tensor(4, 700);
    const int32_t first = inner_last ? outer : inner;
    const int32_t second = inner_last ? inner : outer;
    f.add(x, first);   // 0
    f.add(first, o2);  // 1: its last read
    f.add(x, second);  // 2
    f.add(v, o);       // 3
    f.m->set_inputs({x});
    f.m->set_outputs({o, o2});
    const MethodCheck c = f.check();
    SCOPED_TRACE(inner_last ? "inner written last" : "outer written last");
    EXPECT_EQ(c.alias_of[v], second);
    EXPECT_EQ(c.lifetimes[second].first, 2);
    EXPECT_EQ(c.lifetimes[second].last, 3);
    EXPECT_EQ(c.lifetimes[first].first, 0);
    EXPECT_EQ(c.lifetimes[first].last, 1);
    EXPECT_TRUE(c.overlaps.empty());
  }
}

// A tensor written by the view's first instruction is not its base (an instruction reads its
// arguments before it writes): the one written before is. That instruction reads the view and
// writes the new tensor over its bytes: an overlap of the two under both readings; the base
// against the new tensor is only the view reading's (a note).
TEST(PlanCheckViewBaseTest, ACandidateWrittenAtTheFirstUseIsNotTheBase) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);
  const int32_t b = f.tensor(32, 0);  // [0, 128), written at 0
  const int32_t w = f.tensor(32, 0);  // [0, 128), written at 1 by the instruction reading v
  const int32_t v = f.tensor(8, 32);  // [32, 64)
  f.add(x, b);                        // 0
  f.add(v, w);                        // 1
  f.m->set_inputs({x});
  f.m->set_outputs({w});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], b);
  EXPECT_EQ(c.lifetimes[b].first, 0);
  EXPECT_EQ(c.lifetimes[b].last, 1);
  ASSERT_EQ(c.overlaps.size(), 1u);
  EXPECT_EQ(c.overlaps[0].value_a, w);  // both start at 1: the lower value index first
  EXPECT_EQ(c.overlaps[0].value_b, v);
  EXPECT_EQ(c.overlaps[0].first_step, 1);
  EXPECT_EQ(c.overlaps[0].last_step, 1);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].rfind("values " + std::to_string(b) + " [0, 128) and " + std::to_string(w) +
                                 " [0, 128) of buffer 0 share bytes during "
                                 "instructions 1..1 only if value " +
                                 std::to_string(v) +
                                 " [32, 64), which no instruction writes, is a view of value " +
                                 std::to_string(b),
                             0),
            0u)
      << c.notes[0];
}

// When a tensor written after the candidate overwrote part of the view's bytes, no tensor holds
// them at the first use: no base, and a warning saying which tensor overwrote them.
TEST(PlanCheckViewBaseTest, BytesPartlyOverwrittenBeforeTheFirstUseLeaveTheViewWithoutABase) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);
  const int32_t b = f.tensor(32, 0);    // [0, 128), written at 0
  const int32_t c2 = f.tensor(16, 96);  // [96, 160), written at 1
  const int32_t v = f.tensor(16, 64);   // [64, 128)
  const int32_t o = f.tensor(4, 600);
  f.add(x, b);   // 0
  f.add(x, c2);  // 1
  f.add(v, o);   // 2
  f.m->set_inputs({x});
  f.m->set_outputs({o});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], -1);
  EXPECT_EQ(c.lifetimes[b].last, 0);  // not extended by the view
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "value " + std::to_string(v) +
                               ": a view of bytes [64, 128) of buffer 0 has no base: "
                               "value " +
                               std::to_string(c2) + " overwrote some of those bytes after value " +
                               std::to_string(b) +
                               " wrote them, before its first use (instruction 2)");
}

TEST(PlanCheckViewBaseTest, AViewWhoseOnlyCandidateIsWrittenLaterHasNoBase) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);
  const int32_t v = f.tensor(8, 32);  // [32, 64), read at 0
  const int32_t b = f.tensor(32, 0);  // [0, 128), written at 1
  const int32_t o = f.tensor(4, 600);
  f.add(v, o);  // 0
  f.add(x, b);  // 1
  f.m->set_inputs({x});
  f.m->set_outputs({o, b});
  const MethodCheck c = f.check();
  EXPECT_EQ(c.alias_of[v], -1);
  // Read before anything writes it: state of its own, live throughout, overlapping b.
  EXPECT_TRUE(c.mutable_buffer[v]);
  ASSERT_EQ(c.overlaps.size(), 1u);
  EXPECT_EQ(c.overlaps[0].value_a, v);
  EXPECT_EQ(c.overlaps[0].value_b, b);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "value " + std::to_string(v) +
                               ": a view of bytes [32, 64) of buffer 0 has no base: no tensor "
                               "holding those bytes was written before its first use "
                               "(instruction 0)");
}

// A mutable buffer M (read at step 0, written back at step 2) holds its bytes from before the
// first step: a never-written view inside it, first used at step 1, between M's first read and
// its write, is a view of M, not a scratch tensor and not a view without a base.
TEST(PlanCheckViewBaseTest, AMutableBufferHoldsItsBytesBeforeItsFirstWrite) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 512);   // input, [512, 528)
  const int32_t m = f.tensor(16, 0);    // M: [0, 64)
  const int32_t t = f.tensor(16, 600);  // [600, 664)
  const int32_t v = f.tensor(4, 16);    // the view: [16, 32)
  const int32_t z = f.tensor(4, 700);   // [700, 716)
  f.add(m, t);                          // step 0: M read first
  f.add(v, z);                          // step 1: the view's first use
  f.add(t, m);                          // step 2: M written back
  f.m->set_inputs({x});
  f.m->set_outputs({z});
  const MethodCheck c = f.check();
  EXPECT_TRUE(c.mutable_buffer[m]);
  EXPECT_EQ(c.alias_of[v], m);
  EXPECT_FALSE(c.mutable_buffer[v]);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
  EXPECT_TRUE(c.overlaps.empty());
}

// A kernel that returns a tensor and then a tensor list (args ..., a, list, a, list) writes the
// list's items, which are also its arguments, whichever return the list is.
TEST(PlanCheckTest, EveryReturnedListWritesItsItems) {
  ViewMethod f;
  const int32_t x = f.tensor(4, 0);
  const int32_t t1 = f.tensor(4, 16);
  const int32_t t2 = f.tensor(4, 32);
  const int32_t a = f.tensor(4, 48);
  const int32_t list = f.m->add_tensor_list({t1, t2});
  f.m->add_kernel_call("devplan_test::split_pair", "out", {x, t1, t2, a, list, a, list});
  f.m->set_inputs({x});
  f.m->set_outputs({a, t1, t2});
  const MethodCheck c = f.check();
  for (int32_t v : {t1, t2, a}) {
    EXPECT_FALSE(c.mutable_buffer[v]) << "value " << v;
    EXPECT_EQ(c.lifetimes[v].first, 0) << "value " << v;
  }
  EXPECT_TRUE(c.overlaps.empty());
}

// m is read before anything writes it and is not an input: a mutable buffer, whose state must
// last from the first step to the last. w, written into m's bytes by the last instruction,
// overlaps it.
TEST(PlanCheckTest, AMutableBufferLivesUpToTheLastStep) {
  ProgramBuilder builder;
  MethodBuilder& b = builder.add_method("forward");
  const uint32_t host = b.add_buffer(64);
  const TensorSpec f4 = TensorSpec::of(ScalarType::Float, {4});
  const int32_t x = b.add_planned_tensor(f4, host, 0);
  const int32_t m = b.add_planned_tensor(f4, host, 16);
  const int32_t t = b.add_planned_tensor(f4, host, 32);
  const int32_t w = b.add_planned_tensor(f4, host, 16);
  const int32_t alpha = b.add_int(1);
  b.add_chain();
  b.add_kernel_call("aten::add", "out", {x, m, alpha, t, t});
  b.add_kernel_call("aten::add", "out", {t, t, alpha, w, w});
  b.set_inputs({x});
  b.set_outputs({w});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_TRUE(c.mutable_buffer[m]);
  EXPECT_FALSE(c.mutable_buffer[x]);
  EXPECT_EQ(c.lifetimes[m].first, 0);
  EXPECT_EQ(c.lifetimes[m].last, 1);
  ASSERT_EQ(c.overlaps.size(), 1u);
  EXPECT_EQ(c.overlaps[0].value_a, m);
  EXPECT_EQ(c.overlaps[0].value_b, w);
}

// A method with a = float[2,2] host input (value 0, host buffer at 0) and d = float[2,2] on
// cuda:0 (value 1, cuda:0 buffer at 0); the tests add values and instructions.
struct CopyMethod {
  ProgramBuilder builder;
  MethodBuilder* m = nullptr;
  uint32_t host = 0;
  uint32_t dev = 0;
  int32_t a = -1;
  int32_t d = -1;
  CopyMethod() {
    m = &builder.add_method("forward");
    host = m->add_buffer(32);
    dev = m->add_buffer(32, Device::cuda(0));
    a = m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
    d = m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), dev, 0);
    m->set_inputs({a});
  }
  std::vector<std::string> violations() const {
    std::vector<std::string> out;
    for (const DeviceViolation& v : check_devices(builder.method(0).plan())) {
      out.push_back(v.message);
    }
    return out;
  }
};

std::vector<uint8_t> ascii(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

TEST(PlanCheckDevicesTest, DeviceToHostCopyTheWrongWayFlagsBothEnds) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_d2h_copy", "out", {c.a, c.d, c.d});
  c.m->set_outputs({c.d});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].step, 0);
  EXPECT_EQ(found[0].value, 0);
  EXPECT_EQ(found[0].instruction, "et_copy::_d2h_copy.out");
  EXPECT_EQ(found[0].message,
            "instruction 0 (et_copy::_d2h_copy.out): self value 0 is on cpu:0, a device-to-host "
            "copy reads a device");
  EXPECT_EQ(found[1].value, 1);
  EXPECT_EQ(found[1].message,
            "instruction 0 (et_copy::_d2h_copy.out): out value 1 is on cuda:0, a device-to-host "
            "copy writes host memory");
}

TEST(PlanCheckDevicesTest, DeviceToHostCopyTheRightWayIsClean) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_d2h_copy", "out", {c.d, c.a, c.a});
  c.m->set_outputs({c.a});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

TEST(PlanCheckDevicesTest, CopyOfSameDtypeButOtherSizeIsFlagged) {
  CopyMethod c;
  // h: float[2] on cuda:0 at offset 16 (value 2): same dtype as a, 8 bytes instead of 16.
  const int32_t h =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}, Device::cuda(0)), c.dev, 16);
  ASSERT_EQ(h, 2);
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_h2d_copy", "out", {c.a, h, h});
  c.m->set_outputs({h});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, 2);
  EXPECT_EQ(found[0].message,
            "instruction 0 (et_copy::_h2d_copy.out): self value 0 is float32 (16 B), out value 2 "
            "is float32 (8 B)");
}

TEST(PlanCheckDevicesTest, CopyOfSameDtypeAndSizeIsClean) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_h2d_copy", "out", {c.a, c.d, c.d});
  c.m->set_outputs({c.d});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

TEST(PlanCheckDevicesTest, DelegateExemptsOnlyHostInputsAndOutputs) {
  CopyMethod c;
  // b: float[2,2] in host memory, neither input nor output (value 2).
  const int32_t b = c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), c.host, 16);
  ASSERT_EQ(b, 2);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("cuda:0")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, b, c.d});
  c.m->set_outputs({c.d});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, 2);
  EXPECT_EQ(found[0].instruction, "delegate DevplanDeviceBackend on cuda:0");
  EXPECT_EQ(found[0].message,
            "instruction 0 (delegate DevplanDeviceBackend on cuda:0): value 2 is on cpu:0, the "
            "delegate's tensors live on cuda:0");
}

TEST(PlanCheckDevicesTest, DelegateTargetWithoutIndexMeansIndexZero) {
  CopyMethod c;
  const uint32_t dev1 = c.m->add_buffer(16, Device::cuda(1));
  const int32_t e =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(1)), dev1, 0);
  ASSERT_EQ(e, 2);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("cuda")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, c.d, e});
  c.m->set_outputs({e});
  EXPECT_EQ(c.violations(),
            std::vector<std::string>{
                "instruction 0 (delegate DevplanDeviceBackend on cuda:0): value 2 is on cuda:1, "
                "the delegate's tensors live on cuda:0"});
}

TEST(PlanCheckDevicesTest, DelegateWithUnparsableTargetIsNotChecked) {
  CopyMethod c;
  const uint32_t dev1 = c.m->add_buffer(16, Device::cuda(1));
  const int32_t e =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(1)), dev1, 0);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("gpu:0")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, c.d, e});
  c.m->set_outputs({e});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

}  // namespace
}  // namespace devplan
