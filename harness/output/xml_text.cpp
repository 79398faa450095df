#include <harness/output/xml_text.h>

#include <cstdint>

namespace devplan::harness {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// One step of UTF-8 decoding at `at`: a valid sequence (its code point and length) or the
// maximal subpart of an invalid one (its length, at least 1).
struct Decoded {
  uint32_t code_point = 0;
  size_t length = 1;
  bool valid = false;
};

Decoded decode_at(std::string_view s, size_t at) {
  const auto lead = static_cast<uint8_t>(s[at]);
  if (lead < 0x80) return {lead, 1, true};
  // Unicode Table 3-7 (well-formed UTF-8 byte sequences): the range of the second byte depends
  // on the lead byte; the later ones are always 80..BF.
  size_t continuation = 0;
  uint8_t lo = 0x80, hi = 0xBF;
  uint32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation = 2;
    cp = lead & 0x0Fu;
    if (lead == 0xE0) lo = 0xA0;  // overlong below
    if (lead == 0xED) hi = 0x9F;  // surrogates above
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation = 3;
    cp = lead & 0x07u;
    if (lead == 0xF0) lo = 0x90;  // overlong below
    if (lead == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return {0, 1, false};  // continuation byte, C0, C1, F5..FF
  }
  size_t length = 1;
  for (size_t k = 0; k < continuation; ++k) {
    if (at + length >= s.size()) return {0, length, false};
    const auto b = static_cast<uint8_t>(s[at + length]);
    if (b < lo || b > hi) return {0, length, false};
    cp = (cp << 6) | (b & 0x3Fu);
    ++length;
    lo = 0x80;
    hi = 0xBF;
  }
  return {cp, length, true};
}

// False for the code points replaced by U+FFFD (see the header); surrogates and code points
// above U+10FFFF never decode, so they are not seen here.
bool allowed(uint32_t cp) {
  if (cp < 0x20) return cp == 0x09 || cp == 0x0A || cp == 0x0D;
  if (cp >= 0x7F && cp <= 0x9F) return false;
  if (cp >= 0xFDD0 && cp <= 0xFDEF) return false;
  return (cp & 0xFFFEu) != 0xFFFEu;
}

std::string escape(std::string_view text, bool literal_tab_and_lf) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t at = 0; at < text.size();) {
    const Decoded d = decode_at(text, at);
    if (!d.valid || !allowed(d.code_point)) {
      out += kReplacement;
    } else {
      switch (d.code_point) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        case '\t':
          out += literal_tab_and_lf ? "\t" : "&#9;";
          break;
        case '\n':
          out += literal_tab_and_lf ? "\n" : "&#10;";
          break;
        case '\r':
          out += "&#13;";
          break;
        default:
          out.append(text.substr(at, d.length));
      }
    }
    at += d.length;
  }
  return out;
}

}  // namespace

std::string xml_escape(std::string_view text) { return escape(text, false); }

std::string xml_escape_text(std::string_view text) { return escape(text, true); }

}  // namespace devplan::harness
