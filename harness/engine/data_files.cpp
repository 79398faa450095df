#include <harness/engine/data_files.h>

#include <runtime_ext/core/byte_count.h>
#include <runtime_ext/program/mmap_data_loader.h>

namespace devplan::harness {

Result<std::shared_ptr<const DataFiles>> map_data_files(const std::vector<std::string>& paths) {
  if (paths.empty()) return std::shared_ptr<const DataFiles>();
  std::vector<DataFiles::Owned> files;
  for (const std::string& path : paths) {
    DEVPLAN_ASSIGN_OR_RETURN(MmapDataLoader loader, MmapDataLoader::open(path));
    auto mapped = std::make_shared<const MmapDataLoader>(std::move(loader));
    DEVPLAN_ASSIGN_OR_RETURN(DataFile file, DataFile::parse(mapped->bytes(), path));
    files.push_back({std::move(mapped), std::move(file)});
  }
  return DataFiles::make(std::move(files));
}

uint64_t data_bytes(const DataFile& file) {
  uint64_t bytes = 0;
  for (const DataEntry& e : file.entries()) bytes += file.data(e).size();
  return bytes;
}

std::string data_file_summary(const DataFile& file) {
  return file.name() + ": " + std::to_string(file.entries().size()) + " tensors, " +
         format_bytes(data_bytes(file)) + " (file " + format_bytes(file.file_size()) + ")";
}

}  // namespace devplan::harness
