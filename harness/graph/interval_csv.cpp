#include <harness/graph/interval_csv.h>

#include <unordered_map>

namespace devplan::harness {

namespace {

enum Column { kId, kLower, kUpper, kSize, kAlignment, kOffset, kColumns };

// The column a header name stands for; kColumns when none.
int column_of(const std::string& name) {
  static const std::unordered_map<std::string, int> names = {
      {"id", kId},        {"buffer", kId},   {"lower", kLower},
      {"start", kLower},  {"begin", kLower}, {"upper", kUpper},
      {"end", kUpper},    {"size", kSize},   {"alignment", kAlignment},
      {"offset", kOffset}};
  auto it = names.find(name);
  return it == names.end() ? kColumns : it->second;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  size_t from = 0;
  while (true) {
    const size_t comma = line.find(',', from);
    out.push_back(trim(line.substr(from, comma == std::string::npos ? comma : comma - from)));
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

// A non-negative decimal integer no larger than `max`; false otherwise.
bool parse_count(const std::string& text, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  unsigned __int128 value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > max) return false;
  *out = static_cast<uint64_t>(value);
  return true;
}

}  // namespace

Result<IntervalTable> parse_interval_csv(const std::string& text, const std::string& file) {
  auto fail = [&](size_t line, const std::string& message) {
    return Error(ErrorCode::InvalidArgument, file + ":" + std::to_string(line) + ": " + message);
  };
  IntervalTable table;
  std::vector<int> column_at;      // per input column: its Column
  std::vector<std::string> names;  // per input column: its header name
  int index_of[kColumns];
  for (int& i : index_of) i = -1;
  std::unordered_map<std::string, size_t> line_of_id;
  unsigned __int128 total = 0;
  size_t line_number = 0, from = 0;
  bool have_header = false;
  bool inclusive_end = false;  // the upper column is spelled `end`
  while (from < text.size()) {
    const size_t newline = text.find('\n', from);
    const std::string line =
        text.substr(from, newline == std::string::npos ? std::string::npos : newline - from);
    from = newline == std::string::npos ? text.size() : newline + 1;
    ++line_number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields = split_fields(line);
    if (!have_header) {
      have_header = true;
      for (size_t c = 0; c < fields.size(); ++c) {
        const int col = column_of(fields[c]);
        const std::string where = "column " + std::to_string(c + 1) + " ('" + fields[c] + "')";
        if (col == kColumns) {
          return fail(line_number, where +
                                       ": unknown column (expected id, lower, upper, size and "
                                       "optionally alignment; or buffer, start, end, size)");
        }
        if (index_of[col] >= 0) {
          return fail(line_number, where + ": repeats column " + std::to_string(index_of[col] + 1));
        }
        index_of[col] = static_cast<int>(c);
        column_at.push_back(col);
        names.push_back(fields[c]);
        if (col != kOffset) table.header.push_back(fields[c]);
      }
      inclusive_end = index_of[kUpper] >= 0 && names[index_of[kUpper]] == "end";
      const char* required[] = {"id", "lower", "upper", "size"};
      for (int col = kId; col <= kSize; ++col) {
        if (index_of[col] < 0) {
          return fail(line_number, std::string("the header has no '") + required[col] +
                                       "' column (expected id,lower,upper,size[,alignment])");
        }
      }
      continue;
    }
    if (fields.size() != column_at.size()) {
      return fail(line_number, std::to_string(fields.size()) + " fields, the header has " +
                                   std::to_string(column_at.size()));
    }
    IntervalRow row;
    std::vector<std::string> kept;
    for (size_t c = 0; c < fields.size(); ++c) {
      const int col = column_at[c];
      const std::string& field = fields[c];
      const std::string where =
          "column " + std::to_string(c + 1) + " (" +
          (col == kOffset ? std::string("offset") : table.header[kept.size()]) + ")";
      if (col == kOffset) continue;
      kept.push_back(field);
      if (col == kId) {
        if (field.empty()) return fail(line_number, where + ": the id is empty");
        row.id = field;
        continue;
      }
      const uint64_t max = col == kLower || col == kUpper ? uint64_t{INT64_MAX} : UINT64_MAX;
      uint64_t value = 0;
      if (!parse_count(field, max, &value)) {
        const bool digits =
            !field.empty() && field.find_first_not_of("0123456789") == std::string::npos;
        return fail(line_number,
                    where + ": '" + field + "' " +
                        (digits ? "does not fit in " +
                                      std::string(max == UINT64_MAX ? "64" : "63") + " bits"
                                : "is not a non-negative integer"));
      }
      if (col == kLower) row.lower = static_cast<int64_t>(value);
      if (col == kUpper) {
        // An `end` column names the last step a buffer is live (MiniMalloc's reading of it):
        // the lifetime is [start, end + 1).
        if (inclusive_end && value == uint64_t{INT64_MAX}) {
          return fail(line_number, where + ": '" + field + "' does not fit in 63 bits plus one");
        }
        row.upper = static_cast<int64_t>(value) + (inclusive_end ? 1 : 0);
      }
      if (col == kSize) row.size = value;
      if (col == kAlignment) {
        if (value == 0 || (value & (value - 1)) != 0 || value > (uint64_t{1} << 32)) {
          return fail(line_number,
                      where + ": alignment " + field + " is not a power of two up to 2^32");
        }
        row.alignment = value;
      }
    }
    if (row.upper <= row.lower) {
      const std::string column =
          "column " + std::to_string(index_of[kUpper] + 1) + " (" + names[index_of[kUpper]] + "): ";
      if (inclusive_end) {
        return fail(line_number, column + "end " + std::to_string(row.upper - 1) +
                                     " is before start " + std::to_string(row.lower) +
                                     " (an end is the last step: lifetimes are [start, end])");
      }
      return fail(line_number, column + "upper " + std::to_string(row.upper) +
                                   " is not above lower " + std::to_string(row.lower) +
                                   " (lifetimes are [lower, upper))");
    }
    auto [it, inserted] = line_of_id.emplace(row.id, line_number);
    if (!inserted) {
      return fail(line_number, "column " + std::to_string(index_of[kId] + 1) + " (" +
                                   names[index_of[kId]] + "): duplicate id '" + row.id +
                                   "' (first on line " + std::to_string(it->second) + ")");
    }
    total += static_cast<unsigned __int128>(row.size) + row.alignment;
    if (total > (static_cast<unsigned __int128>(1) << 62)) {
      return fail(line_number, "the sizes sum past 2^62 bytes");
    }
    table.rows.push_back(row);
    table.fields.push_back(std::move(kept));
  }
  if (!have_header) {
    return Error(ErrorCode::InvalidArgument,
                 file + ": empty (expected a header id,lower,upper,size[,alignment])");
  }
  return table;
}

std::string write_interval_csv(const IntervalTable& table, const std::vector<uint64_t>& offsets) {
  std::string out;
  for (const std::string& name : table.header) out += name + ",";
  out += "offset\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    for (const std::string& field : table.fields[r]) out += field + ",";
    out += std::to_string(offsets[r]) + "\n";
  }
  return out;
}

}  // namespace devplan::harness
