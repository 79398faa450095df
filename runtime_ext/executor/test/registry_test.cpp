#include <runtime_ext/executor/backend.h>
#include <runtime_ext/executor/kernel_registry.h>

#include <gtest/gtest.h>

namespace devplan {
namespace {

Error noop_kernel(KernelContext&, Span<EValue*>) { return Error::success(); }

TEST(KernelRegistryTest, GlobalHoldsTheBuiltins) {
  const KernelRegistry& r = KernelRegistry::global();
  EXPECT_NE(r.find("aten::add.out"), nullptr);
  EXPECT_NE(r.find("aten::mul.out"), nullptr);
  EXPECT_NE(r.find("et_copy::_h2d_copy.out"), nullptr);
  EXPECT_NE(r.find("et_copy::_d2h_copy.out"), nullptr);
  EXPECT_EQ(r.find("aten::sub.out"), nullptr);
}

TEST(KernelRegistryTest, RegisterTwiceIsAnError) {
  KernelRegistry r;
  ASSERT_TRUE(r.register_kernel("my::op.out", &noop_kernel).ok());
  Error e = r.register_kernel("my::op.out", &noop_kernel);
  EXPECT_EQ(e.code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(e.message(), "kernel my::op.out is already registered");
  EXPECT_EQ(r.register_kernel("", &noop_kernel).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.register_kernel("x", nullptr).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"my::op.out"}));
  EXPECT_TRUE(r.unregister_kernel("my::op.out").ok());
  EXPECT_EQ(r.unregister_kernel("my::op.out").code(), ErrorCode::NotFound);
  EXPECT_EQ(r.find("my::op.out"), nullptr);
}

class NullBackend : public Backend {
 public:
  Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo&,
                                               const BackendContext&) override {
    return std::unique_ptr<DelegateHandle>();
  }
  Error execute(DelegateHandle*, const BackendContext&, Span<EValue*>) override {
    return Error::success();
  }
};

TEST(BackendRegistryTest, RegisterFindAndScopedRestore) {
  BackendRegistry r;
  NullBackend a, b;
  ASSERT_TRUE(r.register_backend("A", &a).ok());
  EXPECT_EQ(r.register_backend("A", &b).code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(r.find("A"), &a);
  EXPECT_EQ(r.find("B"), nullptr);
  {
    ScopedBackend scoped("A", &b, r);
    EXPECT_EQ(r.find("A"), &b);
    ScopedBackend fresh("B", &b, r);
    EXPECT_EQ(r.find("B"), &b);
  }
  EXPECT_EQ(r.find("A"), &a);
  EXPECT_EQ(r.find("B"), nullptr);
  EXPECT_EQ(r.unregister_backend("A", &b).code(), ErrorCode::NotFound);
  EXPECT_TRUE(r.unregister_backend("A", &a).ok());
  EXPECT_EQ(r.find("A"), nullptr);
  const Error no_id = r.register_backend("", &a);
  EXPECT_EQ(no_id.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(no_id.message(), "a backend needs an id and an implementation");
  const Error no_backend = r.register_backend("C", nullptr);
  EXPECT_EQ(no_backend.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(no_backend.message(), "a backend needs an id and an implementation");
  EXPECT_EQ(r.find("C"), nullptr);
}

}  // namespace
}  // namespace devplan
