// DataFile: ExecuTorch's external data file (`.ptd`, FlatTensor, file identifier FT01) read in
// place: named blobs (a program's constants kept outside it, keyed by the tensor's fully
// qualified name) with each tensor's layout, in segments after the flatbuffer.
// runtime_ext/schema/flat_tensor.fbs has the format; DataFiles is the set a program is given
// (`--data`, ExecuTorch's Module(program, data_files)).
//
//   Result<DataFile> f = DataFile::parse(bytes, "weights.ptd");
//   const DataEntry* w = f->find("linear.weight");          // nullptr when absent
//   Span<const uint8_t> data = f->data(*w);                  // points into `bytes`
//
// Everything is checked at parse (the header, the flatbuffer, every entry's segment inside the
// file), so a bad file is an InvalidExternalData naming what is wrong, never a crash. The spans
// point into the bytes given, which must outlive the DataFile.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

struct DataSegmentInfo {
  uint64_t offset = 0;  // in the file (the segment base offset added)
  uint64_t size = 0;
};

struct DataEntry {
  std::string key;
  uint32_t segment = 0;
  bool has_layout = false;  // a tensor's data; the layout fields below are set
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
};

class DataFile {
 public:
  static constexpr char kFileIdentifier[5] = "FT01";

  // InvalidExternalData naming what is wrong; `name` (the path) heads every message.
  static Result<DataFile> parse(Span<const uint8_t> bytes, std::string name);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint64_t file_size() const { return bytes_.size(); }
  Span<const uint8_t> bytes() const { return bytes_; }
  uint64_t segment_base_offset() const { return segment_base_offset_; }
  uint64_t segment_data_size() const { return segment_data_size_; }
  const std::vector<DataSegmentInfo>& segments() const { return segments_; }
  const std::vector<DataEntry>& entries() const { return entries_; }

  // The entry named `key`, or nullptr.
  const DataEntry* find(const std::string& key) const;
  // The bytes of `entry`'s segment.
  Span<const uint8_t> data(const DataEntry& entry) const;
  // The largest power of two (up to 4096) that divides the offset of `entry`'s data in the file.
  uint64_t alignment(const DataEntry& entry) const;

 private:
  std::string name_;
  Span<const uint8_t> bytes_;
  uint32_t version_ = 0;
  uint64_t segment_base_offset_ = 0;
  uint64_t segment_data_size_ = 0;
  std::vector<DataSegmentInfo> segments_;
  std::vector<DataEntry> entries_;
};

// Whether `bytes` carry the FlatTensor identifier.
bool is_data_file(Span<const uint8_t> bytes);

// The data files a program is given, searched in order. A key in two of them is refused, as
// ExecuTorch's merged data map refuses it.
class DataFiles {
 public:
  // Each file with what keeps its bytes alive (a mapping or a vector).
  struct Owned {
    std::shared_ptr<const void> owner;
    DataFile file;
  };
  // InvalidExternalData naming a key two files hold.
  static Result<std::shared_ptr<const DataFiles>> make(std::vector<Owned> files);

  bool empty() const { return files_.empty(); }
  const std::vector<Owned>& files() const { return files_; }
  // The file holding `key` and its entry, or {nullptr, nullptr}.
  std::pair<const DataFile*, const DataEntry*> find(const std::string& key) const;
  // "a.ptd, b.ptd".
  std::string names() const;

 private:
  std::vector<Owned> files_;
};

// Where an external tensor's data is: the file, its entry and the bytes (the tensor's first
// nbytes are its data).
struct ExternalTensorData {
  const DataFile* file = nullptr;
  const DataEntry* entry = nullptr;
  Span<const uint8_t> data;
};

// As ExecuTorch's Method::parse_external_constants: `files` must hold the tensor's key (its
// fully qualified name) with its dtype, sizes and dim order, and at least its bytes.
// InvalidState when no file was given ("external tensor 'w' is kept in a data file (.ptd) and
// none was given (--data FILE.ptd)"), NotFound when none holds the key, InvalidExternalData for
// a layout that differs (naming the field and both values).
Result<ExternalTensorData> resolve_external_tensor(const DataFiles* files, const TensorInfo& info);

}  // namespace devplan
