// Escaping arbitrary bytes (method names, owners, file paths and error messages read from
// untrusted program files) into text that is always well-formed XML 1.0 and valid UTF-8, for
// the JUnit XML, SVG and HTML writers of harness/output/.
//
//   xml << "<testcase name=\"" << xml_escape(name) << "\">";       // attribute value
//   xml << "<failure>" << xml_escape_text(message) << "</failure>";  // element content
//
// The rule, the same in every writer:
// - & < > " ' become &amp; &lt; &gt; &quot; &#39; (so "]]>" becomes "]]&gt;"; no writer uses
//   CDATA).
// - Each byte sequence that is not valid UTF-8 becomes U+FFFD (bytes EF BF BD), one U+FFFD per
//   maximal subpart (Unicode 15 section 3.9, the WHATWG decoder, Python's "replace"): a lone
//   continuation byte, C0, C1 or F5..FF, and a lead byte whose next byte makes an overlong form
//   (E0 80..9F, F0 80..8F), a surrogate (ED A0..BF) or a code point above U+10FFFF (F4 90..BF)
//   each give one U+FFFD per byte ("\xED\xA0\x80" gives three); a sequence cut short after a
//   valid prefix gives one ("\xE2\x82" gives one).
// - Each code point XML 1.0 forbids (C0 controls other than TAB, LF and CR; U+FFFE, U+FFFF) or
//   discourages and HTML5 reports as a parse error (DEL and the C1 controls U+007F..U+009F; the
//   noncharacters U+FDD0..U+FDEF and U+nFFFE, U+nFFFF of every plane) becomes U+FFFD:
//   "a\x01b" becomes "a\xEF\xBF\xBDb".
// - TAB, LF and CR become &#9; &#10; &#13; so that an XML parser's attribute-value and
//   line-end normalization give back the exact text; xml_escape_text keeps TAB and LF literal
//   (element content only, where parsers keep them) for readable multi-line text. (HTML5
//   parsers read &#13; as CR too, noting a parse error; that is the only HTML5 parse error the
//   rule leaves.)
// - Everything else, valid multi-byte UTF-8 included, is copied unchanged.
// The result reads back (after entity expansion) as the input with only those replacements.
#pragma once

#include <string>
#include <string_view>

namespace devplan::harness {

// `text` escaped by the rule above, safe in attribute values and element content alike.
std::string xml_escape(std::string_view text);

// As xml_escape, but TAB and LF stay literal: for element content only (not attributes).
std::string xml_escape_text(std::string_view text);

}  // namespace devplan::harness
