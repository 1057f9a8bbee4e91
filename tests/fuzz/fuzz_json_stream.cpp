// Fuzz harness of the streaming JSON scanner the trace reader is built on (io/json_stream.h),
// against nlohmann's parser: the scanner accepts exactly the texts nlohmann accepts (but those
// nested deeper than its limit), and FlatObject reads every member of an accepted object as
// nlohmann does. A disagreement escapes as std::logic_error.
#include "fuzz_entry.h"
#include "io/json_stream.h"

#include <nlohmann/json.hpp>
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

} // namespace

STAGECRAFT_FUZZ_TARGET(json_stream) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    stagecraft::ByteSource in(text);
    stagecraft::JsonStreamScanner scanner(in, 64);
    bool accepted = false;
    try {
        scanner.skipByteOrderMark();
        scanner.skipValue(0);
        scanner.expectEnd();
        accepted = true;
    } catch (const stagecraft::JsonSyntaxError&) {
    } catch (const stagecraft::JsonDepthError&) {
        return; // nlohmann has no depth limit
    }
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
