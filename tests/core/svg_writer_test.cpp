// The SVG writer: exact markup of a small scene, well-formed XML for real charts (checked by a
// small parser written here), one <rect class="op ..."> per op with its tooltip, escaped text,
// and the committed example chart of docs/charts.md is what the code draws today.
#include "file_io.h"
#include "generators/registry.h"
#include "layout/gantt_layout.h"
#include "layout/svg_writer.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <stdexcept>

using namespace stagecraft;

namespace {

struct XmlElement {
    std::string name;
    std::map<std::string, std::string> attributes; ///< decoded values
    std::string text;                              ///< decoded character data directly inside
    std::vector<XmlElement> children;
};

/// A strict little XML 1.0 reader for what the writer may produce: a declaration, elements,
/// quoted attributes, character data and the five named plus numeric entities. Throws
/// std::runtime_error on anything malformed.
class XmlReader {
  public:
    explicit XmlReader(std::string_view text) : m_text(text) {}

    XmlElement document() {
        if (m_text.substr(0, 5) == "<?xml") {
            const auto end = m_text.find("?>");
            if (end == std::string_view::npos) fail("unterminated declaration");
            m_pos = end + 2;
        }
        skipBlanks();
        XmlElement root = element();
        skipBlanks();
        if (m_pos != m_text.size()) fail("content after the root element");
        return root;
    }

  private:
    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("XML error at byte " + std::to_string(m_pos) + ": " + why);
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++m_pos;
    }
    void skipBlanks() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    }
    std::string name() {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '-' ||
                m_text[m_pos] == ':' || m_text[m_pos] == '_'))
            ++m_pos;
        if (m_pos == start) fail("expected a name");
        return std::string(m_text.substr(start, m_pos - start));
    }
    std::string entity() {
        const auto end = m_text.find(';', m_pos);
        if (end == std::string_view::npos || end - m_pos > 10) fail("unterminated entity");
        const std::string_view ref = m_text.substr(m_pos + 1, end - m_pos - 1);
        m_pos = end + 1;
        static const std::map<std::string_view, std::string> named = {
            {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
        if (auto it = named.find(ref); it != named.end()) return it->second;
        if (ref.size() > 1 && ref[0] == '#') {
            const bool hex = ref[1] == 'x';
            const std::string digits(ref.substr(hex ? 2 : 1));
            if (digits.empty() ||
                digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
                fail("bad character reference");
            const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
            if (cp < 0x80) return std::string(1, char(cp));
            return "?"; // not produced by the writer; decoded loosely
        }
        fail("unknown entity &" + std::string(ref) + ";");
    }
    std::string characters(char stop) {
        std::string out;
        while (m_pos < m_text.size() && m_text[m_pos] != stop) {
            const char c = m_text[m_pos];
            if (c == '&') {
                out += entity();
                continue;
            }
            if (c == '<' || (stop != '<' && c == '>')) fail("raw markup character in text");
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
                fail("control character");
            out += c;
            ++m_pos;
        }
        return out;
    }
    XmlElement element() {
        expect('<');
        XmlElement e;
        e.name = name();
        for (;;) {
            const std::size_t before = m_pos;
            skipBlanks();
            if (peek() == '/') {
                ++m_pos;
                expect('>');
                return e;
            }
            if (peek() == '>') {
                ++m_pos;
                break;
            }
            if (m_pos == before) fail("attributes must be separated by blanks");
            const std::string key = name();
            expect('=');
            const char quote = peek();
            if (quote != '"' && quote != '\'') fail("attribute value of '" + key + "' is not quoted");
            ++m_pos;
            std::string value = characters(quote);
            expect(quote);
            if (!e.attributes.emplace(key, std::move(value)).second) fail("duplicate attribute " + key);
        }
        for (;;) {
            e.text += characters('<');
            if (m_pos >= m_text.size()) fail("unclosed element <" + e.name + ">");
            if (m_text.substr(m_pos, 2) == "</") {
                m_pos += 2;
                if (name() != e.name) fail("mismatched closing tag for <" + e.name + ">");
                skipBlanks();
                expect('>');
                return e;
            }
            e.children.push_back(element());
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

void collect(const XmlElement& e, const std::string& name, std::vector<const XmlElement*>& out) {
    if (e.name == name) out.push_back(&e);
    for (const XmlElement& child : e.children) collect(child, name, out);
}

std::vector<const XmlElement*> all(const XmlElement& root, const std::string& name) {
    std::vector<const XmlElement*> out;
    collect(root, name, out);
    return out;
}

Timeline simulated(std::string_view name, int p, int m, int v = 1) {
    const Schedule s = generateSchedule(name, {p, m, v});
    return simulate(s, fullStageCosts(s, 1, 1, 1));
}

} // namespace

TEST_CASE("SVG of a small scene, attribute by attribute", "[layout]") {
    Scene scene;
    scene.width = 100;
    scene.height = 40.5;
    scene.fontFamily = "Helvetica, 'DejaVu Sans', sans-serif";
    scene.rects.push_back(
        {0, 0, 100, 40.5, {255, 255, 255, 255}, {}, 0, RectRole::Background, -1, -1, {}, {}});
    scene.rects.push_back({10,
                           5,
                           12.345,
                           8,
                           {0, 114, 178, 255},
                           {255, 255, 255, 255},
                           0.5,
                           RectRole::Op,
                           3,
                           0,
                           "F",
                           "0F0 <1>"});
    scene.rects.push_back({10, 20, 5, 3, {85, 85, 85, 128}, {}, 0, RectRole::Comm, 7, 1, "activation", {}});
    scene.lines.push_back({10, 30, 90, 30, {77, 77, 77, 255}, 0.5, false});
    scene.lines.push_back({10, 32, 90, 32, {77, 77, 77, 255}, 1, true});
    scene.texts.push_back({16, 11, "F0 & \"1\"", 6.5, {255, 255, 255, 255}, TextAnchor::Middle, false});
    scene.texts.push_back({2, 38, "D0", 7, {26, 26, 26, 255}, TextAnchor::End, true});
    CHECK(sceneToSvg(scene) ==
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100pt\" height=\"40.5pt\" "
          "viewBox=\"0 0 100 40.5\">\n"
          "<g font-family=\"Helvetica, &apos;DejaVu Sans&apos;, sans-serif\">\n"
          "<rect class=\"background\" x=\"0\" y=\"0\" width=\"100\" height=\"40.5\" fill=\"#ffffff\"/>\n"
          "<rect class=\"op F\" x=\"10\" y=\"5\" width=\"12.35\" height=\"8\" fill=\"#0072b2\" "
          "stroke=\"#ffffff\" "
          "stroke-width=\"0.5\" data-event=\"3\" data-panel=\"0\"><title>0F0 &lt;1&gt;</title></rect>\n"
          "<rect class=\"comm activation\" x=\"10\" y=\"20\" width=\"5\" height=\"3\" fill=\"#555555\" "
          "fill-opacity=\"0.502\" data-event=\"7\" data-panel=\"1\"/>\n"
          "<line x1=\"10\" y1=\"30\" x2=\"90\" y2=\"30\" stroke=\"#4d4d4d\" stroke-width=\"0.5\"/>\n"
          "<line x1=\"10\" y1=\"32\" x2=\"90\" y2=\"32\" stroke=\"#4d4d4d\" stroke-width=\"1\" "
          "stroke-dasharray=\"4 3\"/>\n"
          "<text x=\"16\" y=\"11\" font-size=\"6.5\" fill=\"#ffffff\" text-anchor=\"middle\">F0 &amp; "
          "&quot;1&quot;</text>\n"
          "<text x=\"2\" y=\"38\" font-size=\"7\" fill=\"#1a1a1a\" text-anchor=\"end\" "
          "font-weight=\"bold\">D0</text>\n"
          "</g>\n</svg>\n");
}

TEST_CASE("XML escaping covers markup, quotes, control bytes and broken UTF-8", "[layout]") {
    CHECK(xmlEscape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    CHECK(xmlEscape("tab\tnul\x01x") == "tab\tnulx");
    CHECK(xmlEscape("\u00B5s \u2192 ok") == "\u00B5s \u2192 ok");
    CHECK(xmlEscape("bad \xC3 byte \xFF") == "bad \uFFFD byte \uFFFD");
    CHECK(xmlEscape("overlong \xC0\xAF") == "overlong \uFFFD\uFFFD");
    CHECK(xmlEscape("cut \xE2\x86") == "cut \uFFFD\uFFFD");
}

TEST_CASE("A chart's SVG is well-formed with one op rect per compute event", "[layout]") {
    const Timeline a = simulated("1f1b", 4, 8);
    const Timeline b = simulated("chimera", 4, 8);
    const std::string title = "1F1B <p=4> & \"m=8\" 'x' \xFF";
    const std::vector<ChartPanel> panels{{&a, title, "sub & <sub>"}, {&b, "Chimera", ""}};
    ChartOptions options;
    options.timeUnit = TimeUnit::Units;
    const std::string svg = sceneToSvg(layoutGantt(panels, options));
    XmlElement root;
    REQUIRE_NOTHROW(root = XmlReader(svg).document());
    CHECK(root.name == "svg");
    CHECK(root.attributes.at("xmlns") == "http://www.w3.org/2000/svg");
    CHECK(root.attributes.at("version") == "1.1");
    CHECK(root.attributes.at("width") == "500pt");
    CHECK(root.attributes.at("viewBox").rfind("0 0 500 ", 0) == 0);

    std::size_t ops = 0;
    std::map<std::string, int> perPanel;
    std::map<std::string, int> perClass;
    for (const XmlElement* r : all(root, "rect")) {
        const std::string& cls = r->attributes.at("class");
        if (cls.rfind("op ", 0) != 0) continue;
        ++ops;
        ++perPanel[r->attributes.at("data-panel")];
        ++perClass[cls];
        REQUIRE(r->children.size() == 1);
        CHECK(r->children[0].name == "title");
        CHECK(!r->children[0].text.empty());
        CHECK(r->attributes.count("data-event") == 1);
    }
    auto computeCount = [](const Timeline& t) {
        return int(std::count_if(t.events.begin(), t.events.end(),
                                 [](const TimelineEvent& e) { return e.lane == Lane::Compute; }));
    };
    CHECK(ops == std::size_t(computeCount(a) + computeCount(b)));
    CHECK(perPanel["0"] == computeCount(a));
    CHECK(perPanel["1"] == computeCount(b));
    CHECK(perClass["op F"] == perClass["op B"]);
    CHECK(perClass.size() == 2);

    // The title survives the round trip; the broken byte became U+FFFD.
    bool titleFound = false, subFound = false;
    for (const XmlElement* t : all(root, "text")) {
        titleFound |= t->text == "1F1B <p=4> & \"m=8\" 'x' \uFFFD";
        subFound |= t->text == "sub & <sub>";
    }
    CHECK(titleFound);
    CHECK(subFound);
    CHECK(svg.find("1F1B &lt;p=4&gt; &amp; &quot;m=8&quot; &apos;x&apos;") != std::string::npos);
}

TEST_CASE("The reader used above rejects malformed XML", "[layout]") {
    for (const char* bad : {"<a><b></a>", "<a x=1/>", "<a x=\"1\"y=\"2\"/>", "<a>&nope;</a>", "<a>1 < 2</a>",
                            "<a></a><b/>", "<a x=\"1\" x=\"2\"/>", "<a>"}) {
        INFO(bad);
        CHECK_THROWS_AS(XmlReader(bad).document(), std::runtime_error);
    }
    CHECK(XmlReader("<a x='1'>&lt;&#65;&#x42;</a>").document().text == "<AB");
}

TEST_CASE("docs/images/1f1b-p4-m8.svg is the chart the code draws", "[layout]") {
    // Regenerate with STAGECRAFT_UPDATE_DOCS=1 after a deliberate change to the chart style.
    const Timeline t = simulated("1f1b", 4, 8);
    const std::vector<ChartPanel> panels{{&t, "1F1B", ""}};
    ChartOptions options;
    options.timeUnit = TimeUnit::Units;
    const std::string svg = sceneToSvg(layoutGantt(panels, options));
    const std::string path = std::string(STAGECRAFT_SOURCE_DIR) + "/docs/images/1f1b-p4-m8.svg";
    if (const char* update = std::getenv("STAGECRAFT_UPDATE_DOCS"); update && std::string(update) == "1")
        writeFileAtomically(path, svg);
    CHECK(readTextFile(path) == svg);
}
