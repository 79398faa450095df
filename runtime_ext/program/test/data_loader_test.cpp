#include <gtest/gtest.h>
#include <runtime_ext/program/buffer_data_loader.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/program/mmap_data_loader.h>
#include <runtime_ext/program/program.h>

#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <vector>

#include "program_test_util.h"

namespace devplan {
namespace {

using testing_util::executorch_fixture_path;

TEST(BufferDataLoaderTest, LoadsRangesAndRejectsRangesPastTheEnd) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  BufferDataLoader loader(bytes.data(), bytes.size());
  ASSERT_TRUE(loader.size().ok());
  EXPECT_EQ(*loader.size(), 10u);

  uint8_t out[4] = {0, 0, 0, 0};
  ASSERT_TRUE(loader.load_into(6, 4, out).ok());
  EXPECT_EQ(out[0], 7);
  EXPECT_EQ(out[3], 10);

  Error e = loader.load_into(7, 4, out);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "cannot load 4 bytes at offset 7 from a buffer of 10 bytes");
  // offset + size overflows size_t: still an error, not a wrapped-around success.
  e = loader.load_into(2, std::numeric_limits<size_t>::max(), out);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  e = loader.load_into(11, 0, out);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(loader.load_into(10, 0, out).ok());
}

TEST(BufferDataLoaderTest, LoadReturnsAnAlignedCopy) {
  std::vector<uint8_t> storage(40, 0);
  for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<uint8_t>(i);
  // A deliberately misaligned view.
  BufferDataLoader loader(storage.data() + 3, 20);
  Result<AlignedBytes> bytes = loader.load(1, 16);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(bytes->size(), 16u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes->data()) % AlignedBytes::kAlignment, 0u);
  EXPECT_EQ(bytes->data()[0], 4);
  EXPECT_EQ(bytes->data()[15], 19);
  EXPECT_EQ(loader.load(10, 11).code(), ErrorCode::InvalidArgument);
}

TEST(AlignedBytesTest, CopyOfHoldsTheBytesAligned) {
  const std::vector<uint8_t> source = {9, 8, 7, 6, 5};
  Result<AlignedBytes> copy = AlignedBytes::copy_of(Span<const uint8_t>(source));
  ASSERT_TRUE(copy.ok()) << copy.error();
  EXPECT_EQ(std::vector<uint8_t>(copy->data(), copy->data() + copy->size()), source);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy->data()) % AlignedBytes::kAlignment, 0u);
  Result<AlignedBytes> empty = AlignedBytes::copy_of(Span<const uint8_t>());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(empty->data(), nullptr);
}

// The heap in use (small blocks and mapped ones) returns to where it was once the bytes, and
// a replaced buffer, are gone.
TEST(AlignedBytesTest, ReleasesItsMemory) {
  const auto in_use = [] {
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
  };
  const size_t before = in_use();
  {
    Result<AlignedBytes> a = AlignedBytes::allocate(size_t{8} << 20);
    ASSERT_TRUE(a.ok());
    Result<AlignedBytes> b = AlignedBytes::allocate(size_t{8} << 20);
    ASSERT_TRUE(b.ok());
    if (in_use() < before + (size_t{16} << 20)) {
      // AddressSanitizer and valgrind bring their own allocators, which mallinfo2 does not
      // see; LeakSanitizer checks this under the asan preset.
      GTEST_SKIP() << "this process's allocator does not report to mallinfo2";
    }
    *a = std::move(*b);  // releases a's first buffer
    EXPECT_LT(in_use(), before + (size_t{12} << 20));
  }
  EXPECT_LT(in_use(), before + (size_t{1} << 20));
}

TEST(AlignedBytesTest, MovesOwnership) {
  Result<AlignedBytes> a = AlignedBytes::allocate(64);
  ASSERT_TRUE(a.ok());
  uint8_t* data = a->data();
  AlignedBytes moved(std::move(*a));
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.size(), 64u);
  EXPECT_EQ(a->data(), nullptr);
  EXPECT_EQ(a->size(), 0u);
  Result<AlignedBytes> empty = AlignedBytes::allocate(0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->data(), nullptr);
}

TEST(FileDataLoaderTest, ReadsTheWholeFile) {
  const std::string path = executorch_fixture_path("add.pte");
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  ASSERT_TRUE(loader.ok()) << loader.error();
  EXPECT_EQ(loader->path(), path);
  ASSERT_TRUE(loader->size().ok());
  EXPECT_EQ(*loader->size(), 728u);
  Result<AlignedBytes> bytes = loader->load(0, 728);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  const std::vector<uint8_t> expected = read_file(path).value();
  ASSERT_EQ(expected.size(), 728u);
  EXPECT_EQ(std::vector<uint8_t>(bytes->data(), bytes->data() + 728), expected);

  uint8_t four[4];
  ASSERT_TRUE(loader->load_into(4, 4, four).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(four), 4), "ET12");
  const Error past = loader->load_into(725, 4, four);
  EXPECT_EQ(past.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(past.message(), "cannot load 4 bytes at offset 725 from a file of 728 bytes");
}

// Open file descriptors of this process.
size_t open_descriptors() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++n;
  }
  return n;
}

// Every loader closes its file when it goes away, moved or not, and when replaced.
TEST(FileDataLoaderTest, ClosesItsFileWhenDestroyedOrReplaced) {
  const std::string path = executorch_fixture_path("add.pte");
  const size_t before = open_descriptors();
  {
    Result<FileDataLoader> loader = FileDataLoader::open(path);
    ASSERT_TRUE(loader.ok());
    EXPECT_EQ(open_descriptors(), before + 1);
    FileDataLoader moved(std::move(*loader));
    EXPECT_EQ(open_descriptors(), before + 1);
    Result<FileDataLoader> other = FileDataLoader::open(path);
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(open_descriptors(), before + 2);
    moved = std::move(*other);  // closes the file `moved` had
    EXPECT_EQ(open_descriptors(), before + 1);
  }
  EXPECT_EQ(open_descriptors(), before);
}

TEST(FileDataLoaderTest, MissingFileIsAccessFailedNamingThePath) {
  Result<FileDataLoader> loader = FileDataLoader::open("/nonexistent/devplan/x.pte");
  ASSERT_FALSE(loader.ok());
  EXPECT_EQ(loader.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(loader.error().message(),
            "cannot open '/nonexistent/devplan/x.pte': No such file or directory");
}

TEST(FileDataLoaderTest, DirectoryIsNotARegularFile) {
  const std::string dir = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch";
  Result<FileDataLoader> loader = FileDataLoader::open(dir);
  ASSERT_FALSE(loader.ok());
  EXPECT_EQ(loader.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(loader.error().message(), "cannot read '" + dir + "': Is a directory");
}

TEST(FileDataLoaderTest, MovedFromLoaderOwnsNothing) {
  Result<FileDataLoader> loader = FileDataLoader::open(executorch_fixture_path("add.pte"));
  ASSERT_TRUE(loader.ok());
  FileDataLoader moved(std::move(*loader));
  EXPECT_EQ(*moved.size(), 728u);
  EXPECT_EQ(loader->size().code(), ErrorCode::InvalidState);
  uint8_t b;
  EXPECT_EQ(loader->load_into(0, 1, &b).code(), ErrorCode::InvalidState);
}

TEST(MmapDataLoaderTest, MapsTheWholeFileAndLoadsAProgram) {
  const std::string path = testing_util::executorch_fixture_path("add.pte");
  Result<MmapDataLoader> loader = MmapDataLoader::open(path);
  ASSERT_TRUE(loader.ok()) << loader.error();
  EXPECT_EQ(loader->path(), path);
  EXPECT_EQ(*loader->size(), 728u);
  const std::vector<uint8_t> expected = read_file(path).value();
  EXPECT_EQ(std::vector<uint8_t>(loader->bytes().begin(), loader->bytes().end()), expected);
  uint8_t four[4];
  ASSERT_TRUE(loader->load_into(4, 4, four).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(four), 4), "ET12");
  const Error past = loader->load_into(725, 4, four);
  EXPECT_EQ(past.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(past.message(), "cannot load 4 bytes at offset 725 from a file of 728 bytes");
  Result<Program> program = Program::load(*loader);
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->num_methods(), 1u);
}

TEST(MmapDataLoaderTest, EmptyFileMapsNothing) {
  const std::string path = ::testing::TempDir() + "devplan_mmap_empty.pte";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  Result<MmapDataLoader> loader = MmapDataLoader::open(path);
  ASSERT_TRUE(loader.ok()) << loader.error();
  EXPECT_EQ(*loader->size(), 0u);
  EXPECT_TRUE(loader->bytes().empty());
  Result<Program> program = Program::load(*loader);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.code(), ErrorCode::InvalidProgram);
  std::remove(path.c_str());
}

TEST(MmapDataLoaderTest, BadPathsAreTheErrorsOfEveryLoader) {
  Result<MmapDataLoader> missing = MmapDataLoader::open("/nonexistent/devplan/x.pte");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "cannot open '/nonexistent/devplan/x.pte': No such file or directory");
  const std::string dir = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch";
  Result<MmapDataLoader> folder = MmapDataLoader::open(dir);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message(), "cannot read '" + dir + "': Is a directory");
  Result<MmapDataLoader> device = MmapDataLoader::open("/dev/null");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message(),
            "cannot read '/dev/null': not a regular file (a character device)");
}

TEST(MmapDataLoaderTest, MovedFromLoaderOwnsNothing) {
  Result<MmapDataLoader> loader =
      MmapDataLoader::open(testing_util::executorch_fixture_path("add.pte"));
  ASSERT_TRUE(loader.ok());
  MmapDataLoader moved(std::move(*loader));
  EXPECT_EQ(*moved.size(), 728u);
  EXPECT_EQ(loader->size().code(), ErrorCode::InvalidState);
  uint8_t b;
  EXPECT_EQ(loader->load_into(0, 1, &b).code(), ErrorCode::InvalidState);
  MmapDataLoader assigned = std::move(moved);
  EXPECT_EQ(*assigned.size(), 728u);
}

}  // namespace
}  // namespace devplan
