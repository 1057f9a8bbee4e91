// Fuzz harness of the JSON layer the trace readers are built on, against nlohmann's parser and
// against itself read in blocks:
//   - the streaming scanner (io/json_stream.h) accepts exactly the texts nlohmann accepts (but
//     those nested deeper than its limit), the whole text at once and handed out in small blocks
//     as a file is read;
//   - FlatObject reads every member of an accepted object as nlohmann does;
//   - the pull reader of the torch profiler and Nsight readers (io/json_scan.h) reads the same
//     values and stops at the same error, with the same line and column, whatever the blocks.
// A disagreement escapes as std::logic_error.
#include "fuzz_entry.h"
#include "io/json_stream.h"
#include "json_pull_walk.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) throw std::logic_error(std::string("json_stream: ") + what);
}

/// FlatObject's view of one member against nlohmann's.
void compare(const stagecraft::FlatValue& flat, const nlohmann::json& expected) {
    check(nlohmann::json::parse(flat.raw) == expected, "a member's text differs");
    if (expected.is_string()) check(flat.text == expected.get_ref<const std::string&>(), "a string differs");
    if (expected.is_number()) {
        const double a = flat.number, b = expected.get<double>();
        check(a == b || (a != a && b != b), "a number differs");
        check(flat.isInteger() == expected.is_number_integer(), "a number's type differs");
    }
    check(flat.isObject() == expected.is_object(), "an object's type differs");
}

/// Whether the streaming scanner accepts the text of `in` as one JSON value; nullopt when it is
/// nested deeper than the scanner's limit.
std::optional<bool> scannerAccepts(stagecraft::ByteSource& in) {
    stagecraft::JsonStreamScanner scanner(in, 64);
    try {
        scanner.skipByteOrderMark();
        scanner.skipValue(0);
        scanner.expectEnd();
        return true;
    } catch (const stagecraft::JsonSyntaxError&) {
        return false;
    } catch (const stagecraft::JsonDepthError&) {
        return std::nullopt;
    }
}

} // namespace

STAGECRAFT_FUZZ_TARGET(json_stream) {
    using stagecraft::JsonScanner;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // Blocks of 1 to 8 bytes: every token crosses a block end somewhere.
    const std::size_t block = 1 + (size > 0 ? data[size - 1] % 8 : 0);

    const std::string whole =
        stagecraft::fuzz::pullWalkOf([&] { return JsonScanner(text, "f.json", "trace.json"); });
    const std::string blocks =
        stagecraft::fuzz::pullWalkOf([&] { return JsonScanner(text, "f.json", "trace.json", block); });
    check(whole == blocks, "the pull reader reads differently in blocks");

    stagecraft::ByteSource in(text), inBlocks(text, block);
    const std::optional<bool> verdict = scannerAccepts(in);
    check(verdict == scannerAccepts(inBlocks), "the scanner decides differently in blocks");
    if (!verdict) return; // nlohmann has no depth limit
    const bool accepted = *verdict;
    check(accepted == nlohmann::json::accept(text), "the scanner and nlohmann disagree on a text");
    if (!accepted) return;
    std::string_view body = text;
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
    while (!body.empty() && (body[0] == ' ' || body[0] == '\n' || body[0] == '\r' || body[0] == '\t'))
        body.remove_prefix(1);
    if (body.empty() || body[0] != '{') return;
    stagecraft::FlatObject object;
    object.read(body);
    const nlohmann::json expected = nlohmann::json::parse(text);
    for (const auto& [key, value] : expected.items()) {
        const stagecraft::FlatValue* member = object.find(object.root(), key);
        check(member != nullptr, "a member is missing");
        compare(*member, value);
        if (!value.is_object()) continue;
        for (const auto& [innerKey, innerValue] : value.items()) {
            const stagecraft::FlatValue* inner = object.find(*member, innerKey);
            check(inner != nullptr, "a member of a member is missing");
            compare(*inner, innerValue);
        }
    }
}
