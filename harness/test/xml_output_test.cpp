// XML 1.0 correctness of every XML/SVG/HTML writer of harness/output/: names holding control
// characters, markup, "]]>" and invalid UTF-8 give documents that parse (tinyxml2) and that read
// back exactly as the rule of harness/output/xml_text.h says.
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <fixtures/generator/fixture_programs.h>
#include <harness/output/junit.h>
#include <harness/output/plan_svg.h>
#include <harness/output/timeline_svg.h>
#include <harness/output/xml_text.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/analysis/plan_check.h>

namespace devplan::harness {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD

std::string fffd(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += kFffd;
  return s;
}

// One piece of a name: what xml_escape writes for it, and what an XML parser reads back.
struct Piece {
  std::string label;
  std::string input;
  std::string escaped;    // xml_escape(input)
  std::string read_back;  // the text after parsing
};

std::vector<Piece> pieces() {
  std::vector<Piece> p;
  // Every C0 control: TAB, LF and CR kept (as character references), the rest U+FFFD.
  for (int c = 0; c < 0x20; ++c) {
    const std::string in(1, static_cast<char>(c));
    const std::string label = "C0 0x" + std::to_string(c);
    if (c == '\t') {
      p.push_back({label, in, "&#9;", in});
    } else if (c == '\n') {
      p.push_back({label, in, "&#10;", in});
    } else if (c == '\r') {
      p.push_back({label, in, "&#13;", in});
    } else {
      p.push_back({label, in, kFffd, kFffd});
    }
  }
  const std::vector<Piece> rest = {
      // Markup.
      {"amp", "&", "&amp;", "&"},
      {"lt", "<", "&lt;", "<"},
      {"gt", ">", "&gt;", ">"},
      {"quot", "\"", "&quot;", "\""},
      {"apos", "'", "&#39;", "'"},
      {"cdata end", "]]>", "]]&gt;", "]]>"},
      {"cdata start", "<![CDATA[x]]>", "&lt;![CDATA[x]]&gt;", "<![CDATA[x]]>"},
      {"entity lookalike", "&amp;&#1;", "&amp;amp;&amp;#1;", "&amp;&#1;"},
      {"comment lookalike", "<!-- x -->", "&lt;!-- x --&gt;", "<!-- x -->"},
      // DEL, C1 controls and noncharacters (discouraged by XML 1.0, HTML5 parse errors).
      {"DEL", "\x7F", kFffd, kFffd},
      {"C1 U+0080", "\xC2\x80", kFffd, kFffd},
      {"C1 U+0085", "\xC2\x85", kFffd, kFffd},
      {"C1 U+009F", "\xC2\x9F", kFffd, kFffd},
      {"U+FDD0", "\xEF\xB7\x90", kFffd, kFffd},
      {"U+FDEF", "\xEF\xB7\xAF", kFffd, kFffd},
      {"U+FFFE", "\xEF\xBF\xBE", kFffd, kFffd},
      {"U+FFFF", "\xEF\xBF\xBF", kFffd, kFffd},
      {"U+1FFFE", "\xF0\x9F\xBF\xBE", kFffd, kFffd},
      {"U+10FFFF", "\xF4\x8F\xBF\xBF", kFffd, kFffd},
      // Invalid UTF-8: one U+FFFD per maximal subpart.
      {"lone continuation 0x80", "\x80", kFffd, kFffd},
      {"lone continuation 0xBF", "\xBF", kFffd, kFffd},
      {"overlong NUL C0 80", "\xC0\x80", fffd(2), fffd(2)},
      {"overlong C1 BF", "\xC1\xBF", fffd(2), fffd(2)},
      {"overlong E0 80 80", "\xE0\x80\x80", fffd(3), fffd(3)},
      {"overlong F0 80 80 80", "\xF0\x80\x80\x80", fffd(4), fffd(4)},
      {"surrogate ED A0 80", "\xED\xA0\x80", fffd(3), fffd(3)},
      {"surrogate ED BF BF", "\xED\xBF\xBF", fffd(3), fffd(3)},
      {"above U+10FFFF F4 90 80 80", "\xF4\x90\x80\x80", fffd(4), fffd(4)},
      {"byte F5", "\xF5", kFffd, kFffd},
      {"byte F8 88 80 80 80", "\xF8\x88\x80\x80\x80", fffd(5), fffd(5)},
      {"byte FE", "\xFE", kFffd, kFffd},
      {"byte FF", "\xFF", kFffd, kFffd},
      {"truncated E2 82", "\xE2\x82", kFffd, kFffd},
      {"truncated C2", "\xC2", kFffd, kFffd},
      {"truncated F0 9F 98", "\xF0\x9F\x98", kFffd, kFffd},
      {"bad second byte E2 28 A1", "\xE2\x28\xA1", kFffd + "(" + kFffd, kFffd + "(" + kFffd},
      {"truncated then lt", "\xE2\x82<", kFffd + "&lt;", kFffd + "<"},
      // Valid UTF-8 is kept byte for byte.
      {"latin e acute", "\xC3\xA9", "\xC3\xA9", "\xC3\xA9"},
      {"U+00A0", "\xC2\xA0", "\xC2\xA0", "\xC2\xA0"},
      {"euro", "\xE2\x82\xAC", "\xE2\x82\xAC", "\xE2\x82\xAC"},
      {"CJK", "\xE4\xB8\xAD\xE6\x96\x87", "\xE4\xB8\xAD\xE6\x96\x87", "\xE4\xB8\xAD\xE6\x96\x87"},
      {"U+D7FF", "\xED\x9F\xBF", "\xED\x9F\xBF", "\xED\x9F\xBF"},
      {"U+E000", "\xEE\x80\x80", "\xEE\x80\x80", "\xEE\x80\x80"},
      {"U+FFFD itself", kFffd, kFffd, kFffd},
      {"U+FFFC", "\xEF\xBF\xBC", "\xEF\xBF\xBC", "\xEF\xBF\xBC"},
      {"G clef U+1D11E", "\xF0\x9D\x84\x9E", "\xF0\x9D\x84\x9E", "\xF0\x9D\x84\x9E"},
      {"emoji U+1F600", "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},
      {"U+10FFFD", "\xF4\x8F\xBF\xBD", "\xF4\x8F\xBF\xBD", "\xF4\x8F\xBF\xBD"},
      {"plain", "forward_0.x/y z", "forward_0.x/y z", "forward_0.x/y z"},
  };
  p.insert(p.end(), rest.begin(), rest.end());
  return p;
}

// A name with the piece between two letters, so that no text is whitespace only.
struct Name {
  std::string label, input, read_back;
};

std::vector<Name> names() {
  std::vector<Name> out;
  for (const Piece& p : pieces())
    out.push_back({p.label, "a" + p.input + "b", "a" + p.read_back + "b"});
  std::string all_in = "m", all_back = "m";
  for (const Piece& p : pieces()) {
    all_in += p.input + "|";
    all_back += p.read_back + "|";
  }
  out.push_back({"every piece at once", all_in, all_back});
  return out;
}

std::string hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

// An independent strict check of the raw document: valid UTF-8 (shortest forms, no surrogates,
// at most U+10FFFF), every code point an XML 1.0 Char and none of the discouraged ones the
// escaper replaces, no "]]>" (no writer uses CDATA), and no literal TAB, LF or CR inside an
// attribute value (parsers would turn them into spaces).
std::string strict_problem(const std::string& doc) {
  for (size_t i = 0; i < doc.size();) {
    const auto b0 = static_cast<unsigned char>(doc[i]);
    size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > doc.size()) return "bad UTF-8 lead at byte " + std::to_string(i);
    uint32_t cp = n == 1 ? b0 : b0 & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(doc[i + k]);
      if ((b & 0xC0) != 0x80) return "bad UTF-8 continuation at byte " + std::to_string(i + k);
      cp = (cp << 6) | (b & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n]) return "overlong UTF-8 at byte " + std::to_string(i);
    if (cp >= 0xD800 && cp <= 0xDFFF) return "surrogate at byte " + std::to_string(i);
    if (cp > 0x10FFFF) return "code point above U+10FFFF at byte " + std::to_string(i);
    const bool xml_char = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                          (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
    if (!xml_char) return "not an XML 1.0 Char at byte " + std::to_string(i);
    const bool discouraged =
        (cp >= 0x7F && cp <= 0x9F) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
    if (discouraged) return "discouraged code point at byte " + std::to_string(i);
    i += n;
  }
  if (doc.find("]]>") != std::string::npos) return "\"]]>\" in the document";
  static const std::regex attribute(R"re(\s[a-zA-Z:-]+="([^"<]*)")re");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), attribute);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[1].str().find_first_of("\t\n\r") != std::string::npos) {
      return "literal whitespace control in attribute " + hex((*it)[0].str());
    }
  }
  return "";
}

// Elements named `tag` anywhere under `node`, in document order.
void collect(const tinyxml2::XMLNode* node, const std::string& tag,
             std::vector<const tinyxml2::XMLElement*>* out) {
  for (const tinyxml2::XMLElement* e = node->FirstChildElement(); e; e = e->NextSiblingElement()) {
    if (tag == e->Name()) out->push_back(e);
    collect(e, tag, out);
  }
}

std::vector<const tinyxml2::XMLElement*> elements(const tinyxml2::XMLNode* node,
                                                  const std::string& tag) {
  std::vector<const tinyxml2::XMLElement*> out;
  collect(node, tag, &out);
  return out;
}

const tinyxml2::XMLElement* with_class(const tinyxml2::XMLNode* node, const std::string& tag,
                                       const std::string& cls) {
  for (const tinyxml2::XMLElement* e : elements(node, tag)) {
    const char* c = e->Attribute("class");
    if (c && cls == c) return e;
  }
  return nullptr;
}

std::string text_of(const tinyxml2::XMLElement* e) { return e && e->GetText() ? e->GetText() : ""; }

std::string attribute_of(const tinyxml2::XMLElement* e, const char* name) {
  return e && e->Attribute(name) ? e->Attribute(name) : "<missing>";
}

// Parses `doc` after the strict check; fails the test (with the name) when either fails.
bool parse(const std::string& doc, const Name& n, tinyxml2::XMLDocument* xml) {
  const std::string problem = strict_problem(doc);
  EXPECT_EQ(problem, "") << n.label;
  const tinyxml2::XMLError e = xml->Parse(doc.data(), doc.size());
  EXPECT_EQ(e, tinyxml2::XML_SUCCESS) << n.label << ": " << xml->ErrorStr();
  return problem.empty() && e == tinyxml2::XML_SUCCESS;
}

// ---- the escaper ----

TEST(XmlTextTest, EscapesEveryPieceExactly) {
  for (const Piece& p : pieces()) {
    EXPECT_EQ(hex(xml_escape(p.input)), hex(p.escaped)) << p.label;
    EXPECT_EQ(hex(xml_escape("x" + p.input + "y")), hex("x" + p.escaped + "y")) << p.label;
  }
}

TEST(XmlTextTest, TextVariantKeepsTabAndLineFeedOnly) {
  EXPECT_EQ(xml_escape_text("a\tb\nc\rd"), "a\tb\nc&#13;d");
  EXPECT_EQ(xml_escape("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  for (const Piece& p : pieces()) {
    if (p.input == "\t" || p.input == "\n") continue;
    EXPECT_EQ(hex(xml_escape_text(p.input)), hex(p.escaped)) << p.label;
  }
}

TEST(XmlTextTest, EdgeCases) {
  EXPECT_EQ(xml_escape(""), "");
  EXPECT_EQ(xml_escape(std::string("\0", 1)), kFffd);
  EXPECT_EQ(xml_escape(std::string("a\0b", 3)), "a" + kFffd + "b");
  // Truncated at the very end of the input.
  EXPECT_EQ(xml_escape("\xE2"), kFffd);
  EXPECT_EQ(xml_escape("x\xF0\x9F"), "x" + kFffd);
  EXPECT_EQ(xml_escape("x\xF4\x8F\xBF"), "x" + kFffd);
  // A valid sequence right after an invalid one is kept.
  EXPECT_EQ(xml_escape("\xE2\xE2\x82\xAC"), kFffd + "\xE2\x82\xAC");
  EXPECT_EQ(xml_escape("\x80\xC3\xA9\x80"), kFffd + "\xC3\xA9" + kFffd);
  // Escaping twice escapes the ampersands again (no double-escape detection).
  EXPECT_EQ(xml_escape(xml_escape("<")), "&amp;lt;");
  // Escaped text is a fixed point of the strict check.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  EXPECT_EQ(strict_problem(xml_escape(all)), "");
  EXPECT_EQ(strict_problem(xml_escape_text(all)), "");
}

TEST(XmlTextTest, EveryTwoByteInputGivesValidXml) {
  // All 65536 two-byte strings, inside an attribute and as element text.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string in{static_cast<char>(a), static_cast<char>(b)};
      const std::string doc = "<e a=\"" + xml_escape(in) + "\">" + xml_escape_text(in) + "</e>";
      const std::string problem = strict_problem(doc);
      ASSERT_EQ(problem, "") << hex(in);
    }
  }
}

// ---- the writers ----

TEST(XmlOutputTest, JunitReadsBackEveryName) {
  for (const Name& n : names()) {
    std::vector<JunitCase> cases = {{n.input, n.input, "", 0.5},
                                    {"cls", "failing " + n.input, n.input + "\nsecond line", 0}};
    const std::string doc = junit_xml(n.input, cases, 1.25);
    tinyxml2::XMLDocument xml;
    if (!parse(doc, n, &xml)) continue;
    const tinyxml2::XMLElement* suite = xml.RootElement()->FirstChildElement("testsuite");
    EXPECT_EQ(hex(attribute_of(suite, "name")), hex(n.read_back)) << n.label;
    std::vector<const tinyxml2::XMLElement*> tcs = elements(suite, "testcase");
    ASSERT_EQ(tcs.size(), 2u) << n.label;
    EXPECT_EQ(hex(attribute_of(tcs[0], "classname")), hex(n.read_back)) << n.label;
    EXPECT_EQ(hex(attribute_of(tcs[0], "name")), hex(n.read_back)) << n.label;
    EXPECT_EQ(hex(attribute_of(tcs[1], "name")), hex("failing " + n.read_back)) << n.label;
    const tinyxml2::XMLElement* failure = tcs[1]->FirstChildElement("failure");
    ASSERT_NE(failure, nullptr) << n.label;
    EXPECT_EQ(hex(text_of(failure)), hex(n.read_back + "\nsecond line")) << n.label;
    // The message is the failure's first line.
    const std::string first_line = n.read_back.substr(0, n.read_back.find('\n'));
    EXPECT_EQ(hex(attribute_of(failure, "message")), hex(first_line)) << n.label;
  }
}

struct PlotInput {
  MethodPlan plan;
  MethodCheck check;
};

PlotInput plot_input(const std::string& method_name) {
  // The plan points into its builder's storage (compile specs, names): the builder must outlive
  // every copy of the plan, so it lives for the whole test program.
  static const ProgramBuilder builder = device_add_cuda0_program_builder();
  PlotInput in{builder.method(0).plan(), {}};
  in.plan.name = method_name;
  in.plan.values[3].tensor.offset = 0;  // an overlap, so its <title> is written too
  in.check = check_method_plan(in.plan);
  return in;
}

TEST(XmlOutputTest, PlanSvgReadsBackEveryName) {
  for (const Name& n : names()) {
    PlotInput in = plot_input(n.input);
    const std::string doc = plan_svg(n.input, {{&in.plan, in.check}});
    tinyxml2::XMLDocument xml;
    if (!parse(doc, n, &xml)) continue;
    const tinyxml2::XMLElement* svg = xml.RootElement();
    ASSERT_STREQ(svg->Name(), "svg");
    EXPECT_EQ(hex(text_of(svg->FirstChildElement("title"))), hex(n.read_back)) << n.label;
    EXPECT_EQ(hex(text_of(svg->FirstChildElement("text"))),
              hex(n.read_back +
                  " \xE2\x80\x94 x: instruction, y: byte offset; red: overlapping live tensors"))
        << n.label;
    EXPECT_EQ(
        hex(text_of(with_class(svg, "text", "method-label"))),
        hex("method " + n.read_back + " (" + std::to_string(in.check.num_steps) + " instructions)"))
        << n.label;
    ASSERT_EQ(elements(svg, "rect").size() > 0, true);
    const tinyxml2::XMLElement* overlap = with_class(svg, "rect", "overlap");
    ASSERT_NE(overlap, nullptr) << n.label;
    EXPECT_EQ(text_of(overlap->FirstChildElement("title")),
              "OVERLAP " + describe_overlap(in.check.overlaps[0]));
  }
}

TEST(XmlOutputTest, PlanHtmlIsWellFormedAndReadsBackEveryName) {
  for (const Name& n : names()) {
    PlotInput in = plot_input(n.input);
    const std::string doc = plan_html(n.input, {{&in.plan, in.check}});
    EXPECT_EQ(doc.rfind("<!DOCTYPE html>\n<html>", 0), 0u);
    tinyxml2::XMLDocument xml;
    if (!parse(doc, n, &xml)) continue;
    const tinyxml2::XMLElement* html = xml.RootElement();
    ASSERT_STREQ(html->Name(), "html");
    const tinyxml2::XMLElement* head = html->FirstChildElement("head");
    ASSERT_NE(head, nullptr);
    EXPECT_EQ(attribute_of(head->FirstChildElement("meta"), "charset"), "utf-8");
    EXPECT_EQ(hex(text_of(head->FirstChildElement("title"))), hex(n.read_back)) << n.label;
    const tinyxml2::XMLElement* body = html->FirstChildElement("body");
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(hex(text_of(body->FirstChildElement("h1"))), hex(n.read_back)) << n.label;
    EXPECT_EQ(hex(text_of(body->FirstChildElement("h2"))), hex(n.read_back)) << n.label;
    const tinyxml2::XMLElement* svg = body->FirstChildElement("svg");
    ASSERT_NE(svg, nullptr);
    EXPECT_EQ(hex(text_of(svg->FirstChildElement("title"))), hex(n.read_back)) << n.label;
    EXPECT_EQ(
        hex(text_of(with_class(svg, "text", "method-label"))),
        hex("method " + n.read_back + " (" + std::to_string(in.check.num_steps) + " instructions)"))
        << n.label;
  }
}

TEST(XmlOutputTest, TimelineSvgReadsBackEveryName) {
  int token = 0;
  const void* ptr = &token;
  for (const Name& n : names()) {
    std::vector<AllocationEvent> events = {
        {AllocationEvent::Kind::Allocate, Device::cuda(0), 64, ptr, 16, n.input},
        {AllocationEvent::Kind::FailedAllocate, Device::cuda(1), 32, nullptr, 16, n.input},
    };
    AllocationRecord leak;
    leak.seq = 1;
    leak.device = Device::cuda(0);
    leak.size = 64;
    leak.alignment = 16;
    leak.owner = n.input;
    leak.ptr = ptr;
    const std::string doc = timeline_svg(n.input, events, {leak});
    tinyxml2::XMLDocument xml;
    if (!parse(doc, n, &xml)) continue;
    const tinyxml2::XMLElement* svg = xml.RootElement();
    ASSERT_STREQ(svg->Name(), "svg");
    EXPECT_EQ(hex(text_of(svg->FirstChildElement("title"))), hex(n.read_back)) << n.label;
    EXPECT_EQ(hex(text_of(svg->FirstChildElement("text"))),
              hex(n.read_back +
                  " \xE2\x80\x94 live device bytes over the allocation sequence; red: leaked"))
        << n.label;
    const tinyxml2::XMLElement* circle = with_class(svg, "circle", "leak");
    ASSERT_NE(circle, nullptr) << n.label;
    EXPECT_EQ(hex(text_of(circle->FirstChildElement("title"))),
              hex("leak: #1 cuda:0 64 B align 16 owner " + n.read_back))
        << n.label;
    const tinyxml2::XMLElement* line = with_class(svg, "polyline", "device-line");
    ASSERT_NE(line, nullptr);
    EXPECT_EQ(attribute_of(line, "data-device"), "cuda:0");
    const tinyxml2::XMLElement* failed = with_class(svg, "path", "failed");
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(text_of(failed->FirstChildElement("title")), "failed allocation of 32 B on cuda:1");
  }
}

}  // namespace
}  // namespace devplan::harness
