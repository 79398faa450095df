// ProgramImage: program bytes mapped from a file or owned, read in place by both engines.
#include <harness/engine/program_image.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/engine.h>

namespace devplan::harness {
namespace {

// A temporary file holding `bytes`, removed by the destructor.
struct TempProgramFile {
  explicit TempProgramFile(const std::vector<uint8_t>& bytes) {
    char name[] = "/tmp/devplan-program-image-XXXXXX";
    const int fd = ::mkstemp(name);
    path = name;
    ::close(fd);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  ~TempProgramFile() { std::remove(path.c_str()); }
  std::string path;
};

TEST(ProgramImageTest, AMappedFileIsParsedInPlace) {
  const std::vector<uint8_t> bytes = make_device_add_cuda0_program();
  TempProgramFile file(bytes);
  Result<ProgramImage> image = ProgramImage::map(file.path);
  ASSERT_TRUE(image.ok()) << image.error();
  ASSERT_EQ(image->size(), bytes.size());
  EXPECT_EQ(image->to_vector(), bytes);
  Result<Program> program = image->program();
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->bytes().data(), image->data());  // no copy
  // The Program keeps the mapping after every image is gone.
  const uint8_t* mapped = image->data();
  image = Error(ErrorCode::Internal, "dropped");
  EXPECT_EQ(program->bytes().data(), mapped);
  EXPECT_TRUE(program->method_meta("forward").ok());
}

TEST(ProgramImageTest, OwnedBytesAreSharedByCopies) {
  ProgramImage image(make_cpu_add_program());
  ProgramImage copy = image;
  EXPECT_EQ(copy.data(), image.data());
  Result<Program> program = copy.program();
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->bytes().data(), image.data());
  EXPECT_EQ(ProgramImage().size(), 0u);
  EXPECT_EQ(ProgramImage().program().code(), ErrorCode::InvalidProgram);
}

TEST(ProgramImageTest, AMissingFileIsAnErrorNamingIt) {
  Result<ProgramImage> image = ProgramImage::map("/nonexistent/model.pte");
  EXPECT_EQ(image.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(image.error().message(),
            "cannot open '/nonexistent/model.pte': No such file or directory");
}

TEST(ProgramImageTest, BothEnginesOpenAMappedProgram) {
  TempProgramFile file(make_device_add_cuda0_program());
  for (RuntimeKind kind : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
    if (kind == RuntimeKind::Executorch && !executorch_available()) continue;
    std::unique_ptr<DeviceEnvironment> env =
        DeviceEnvironment::create(DeviceKind::Simulated).value();
    Result<ProgramImage> image = ProgramImage::map(file.path);
    ASSERT_TRUE(image.ok());
    Result<std::unique_ptr<EngineSession>> session =
        open_session(kind, *image, *env, SessionOptions());
    ASSERT_TRUE(session.ok()) << session.error();
    ASSERT_TRUE((*session)->load_method("forward").ok());
    EXPECT_EQ(env->ledger().size(), 1u);
    ASSERT_TRUE((*session)->unload_method("forward").ok());
  }
}

}  // namespace
}  // namespace devplan::harness
