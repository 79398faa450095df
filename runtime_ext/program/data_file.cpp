#include <runtime_ext/program/data_file.h>

#include <cstring>

#include <flatbuffers/flatbuffers.h>
#include <runtime_ext/schema/flat_tensor_generated.h>

namespace devplan {
namespace {

namespace ft = ::devplan_flat_tensor;

// The extended header after the flatbuffer's root offset and identifier.
constexpr size_t kHeaderOffset = 8;
constexpr char kHeaderMagic[5] = "FH01";
constexpr uint32_t kHeaderLength = 40;  // magic, length, four u64 fields

uint64_t read_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

bool is_data_file(Span<const uint8_t> bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, DataFile::kFileIdentifier, 4) == 0;
}

Result<DataFile> DataFile::parse(Span<const uint8_t> bytes, std::string name) {
  auto bad = [&](const std::string& what) {
    return Error(ErrorCode::InvalidExternalData, name + ": " + what);
  };
  if (!is_data_file(bytes)) {
    return bad("not a data file (.ptd): file identifier is not " + std::string(kFileIdentifier));
  }
  if (bytes.size() < kHeaderOffset + kHeaderLength ||
      std::memcmp(bytes.data() + kHeaderOffset, kHeaderMagic, 4) != 0) {
    return bad("no FH01 header at byte 8 (" + std::to_string(bytes.size()) + " bytes)");
  }
  const uint8_t* h = bytes.data() + kHeaderOffset;
  const uint32_t length = static_cast<uint32_t>(read_le(h + 4, 4));
  if (length < kHeaderLength) {
    return bad("header length " + std::to_string(length) + ", at least 40 expected");
  }
  const uint64_t fb_offset = read_le(h + 8, 8);
  const uint64_t fb_size = read_le(h + 16, 8);
  DataFile file;
  file.name_ = name;
  file.bytes_ = bytes;
  file.segment_base_offset_ = read_le(h + 24, 8);
  file.segment_data_size_ = read_le(h + 32, 8);
  const uint64_t size = bytes.size();
  // The flatbuffer is read from byte 0 (its root offset) to the end of its data.
  if (fb_offset > size || fb_size > size - fb_offset) {
    return bad("the flatbuffer data at " + std::to_string(fb_offset) + " (" +
               std::to_string(fb_size) + " bytes) ends past the " + std::to_string(size) +
               "-byte file: truncated?");
  }
  if (file.segment_base_offset_ > size ||
      file.segment_data_size_ > size - file.segment_base_offset_) {
    return bad("segments at " + std::to_string(file.segment_base_offset_) + " (" +
               std::to_string(file.segment_data_size_) + " bytes) end past the " +
               std::to_string(size) + "-byte file: truncated?");
  }
  const size_t fb_end = static_cast<size_t>(fb_offset + fb_size);
  flatbuffers::Verifier verifier(bytes.data(), fb_end);
  if (!ft::VerifyFlatTensorBuffer(verifier)) {
    return bad("the flatbuffer (" + std::to_string(fb_end) +
               " bytes) failed verification: truncated or corrupt");
  }
  const ft::FlatTensor* root = ft::GetFlatTensor(bytes.data());
  file.version_ = root->version();
  if (root->segments() == nullptr || root->named_data() == nullptr) {
    return bad(std::string("no ") + (root->segments() == nullptr ? "segments" : "named_data"));
  }
  for (flatbuffers::uoffset_t i = 0; i < root->segments()->size(); ++i) {
    const ft::DataSegment* s = root->segments()->Get(i);
    if (s->offset() > file.segment_data_size_ ||
        s->size() > file.segment_data_size_ - s->offset()) {
      return bad("segment " + std::to_string(i) + " [" + std::to_string(s->offset()) + ", +" +
                 std::to_string(s->size()) + ") ends past the segment data (" +
                 std::to_string(file.segment_data_size_) + " bytes)");
    }
    file.segments_.push_back({file.segment_base_offset_ + s->offset(), s->size()});
  }
  for (flatbuffers::uoffset_t i = 0; i < root->named_data()->size(); ++i) {
    const ft::NamedData* d = root->named_data()->Get(i);
    DataEntry e;
    if (d->key() == nullptr) return bad("entry " + std::to_string(i) + " has no key");
    e.key = d->key()->str();
    e.segment = d->segment_index();
    if (e.segment >= file.segments_.size()) {
      return bad("'" + e.key + "': segment " + std::to_string(e.segment) + " of " +
                 std::to_string(file.segments_.size()));
    }
    if (const ft::TensorLayout* layout = d->tensor_layout()) {
      e.has_layout = true;
      e.dtype = static_cast<ScalarType>(layout->scalar_type());
      if (layout->sizes() != nullptr)
        e.sizes.assign(layout->sizes()->begin(), layout->sizes()->end());
      if (layout->dim_order() != nullptr) {
        e.dim_order.assign(layout->dim_order()->begin(), layout->dim_order()->end());
      }
    }
    file.entries_.push_back(std::move(e));
  }
  return file;
}

const DataEntry* DataFile::find(const std::string& key) const {
  for (const DataEntry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

Span<const uint8_t> DataFile::data(const DataEntry& entry) const {
  const DataSegmentInfo& s = segments_[entry.segment];
  return Span<const uint8_t>(bytes_.data() + s.offset, static_cast<size_t>(s.size));
}

uint64_t DataFile::alignment(const DataEntry& entry) const {
  const uint64_t offset = segments_[entry.segment].offset;
  uint64_t a = 1;
  while (a < 4096 && offset % (a * 2) == 0) a *= 2;
  return a;
}

Result<std::shared_ptr<const DataFiles>> DataFiles::make(std::vector<Owned> files) {
  auto set = std::make_shared<DataFiles>();
  for (Owned& f : files) {
    for (const Owned& earlier : set->files_) {
      if (earlier.file.name() == f.file.name()) {
        return Error(ErrorCode::InvalidArgument, f.file.name() + " is given twice");
      }
    }
    for (const DataEntry& e : f.file.entries()) {
      const std::pair<const DataFile*, const DataEntry*> other = set->find(e.key);
      if (other.first != nullptr) {
        return Error(
            ErrorCode::InvalidExternalData,
            "key '" + e.key + "' is in both " + other.first->name() + " and " + f.file.name());
      }
    }
    set->files_.push_back(std::move(f));
  }
  return std::shared_ptr<const DataFiles>(std::move(set));
}

std::pair<const DataFile*, const DataEntry*> DataFiles::find(const std::string& key) const {
  for (const Owned& f : files_) {
    if (const DataEntry* e = f.file.find(key)) return {&f.file, e};
  }
  return {nullptr, nullptr};
}

Result<ExternalTensorData> resolve_external_tensor(const DataFiles* files, const TensorInfo& info) {
  const std::string what = "external tensor '" + info.fully_qualified_name + "'";
  if (files == nullptr || files->empty()) {
    return Error(ErrorCode::InvalidState,
                 what + " is kept in a data file (.ptd) and none was given (--data FILE.ptd)");
  }
  const auto [file, entry] = files->find(info.fully_qualified_name);
  if (file == nullptr) {
    return Error(ErrorCode::NotFound,
                 what + " is in none of the data files given (" + files->names() + ")");
  }
  auto mismatch = [&](const std::string& field, const std::string& program,
                      const std::string& data) {
    return Error(
        ErrorCode::InvalidExternalData,
        what + ": " + field + " " + program + " in the program, " + data + " in " + file->name());
  };
  if (!entry->has_layout) return mismatch("layout", "a tensor's", "none (not a tensor)");
  if (entry->dtype != info.dtype) {
    return mismatch("dtype", scalar_type_name(info.dtype), scalar_type_name(entry->dtype));
  }
  auto list = [](const auto& items) {
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(static_cast<int64_t>(items[i]));
    }
    return text + "]";
  };
  if (entry->sizes != info.sizes) return mismatch("sizes", list(info.sizes), list(entry->sizes));
  if (entry->dim_order != info.dim_order) {
    return mismatch("dim order", list(info.dim_order), list(entry->dim_order));
  }
  const Span<const uint8_t> data = file->data(*entry);
  if (data.size() < info.nbytes) {
    return mismatch("bytes", std::to_string(info.nbytes), std::to_string(data.size()));
  }
  return ExternalTensorData{file, entry, data};
}

std::string DataFiles::names() const {
  std::string text;
  for (const Owned& f : files_) text += (text.empty() ? "" : ", ") + f.file.name();
  return text;
}

}  // namespace devplan
