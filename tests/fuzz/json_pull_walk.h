#pragma once
// A walk of every value of a JSON text through the pull reader's calls (io/json_scan.h), written
// out as it goes, for tests that hold two reads of one text to each other: from memory and in
// blocks, or against nlohmann's parser. Shared by fuzz_json_stream and the robustness tests.

#include "error.h"
#include "io/json_scan.h"

#include <cstdio>
#include <string>

namespace stagecraft::fuzz {

/// What `in` reads, value after value until the end of the text: keys, strings, numbers ("%.17g")
/// and '.' for a literal; after " | ", the ParseError it stopped at, when it did.
inline std::string pullWalk(JsonScanner& in) {
    std::string out;
    struct Walker {
        JsonScanner& in;
        std::string& out;
        void value() {
            const char c = in.peek();
            if (c == '{') {
                in.beginObject();
                out += '{';
                std::string_view key;
                while (in.nextKey(key)) {
                    out.append(key.data(), key.size());
                    out += ':';
                    value();
                }
                out += '}';
            } else if (c == '[') {
                in.beginArray();
                out += '[';
                while (in.nextElement()) value();
                out += ']';
            } else if (c == '"') {
                const std::string_view text = in.readString();
                out += '"';
                out.append(text.data(), text.size());
                out += '"';
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                char number[32];
                std::snprintf(number, sizeof number, "%.17g ", in.readNumber());
                out += number;
            } else {
                in.skipValue();
                out += '.';
            }
        }
    } walker{in, out};
    try {
        while (!in.atEnd()) walker.value();
    } catch (const ParseError& e) {
        out += " | ";
        out += e.what();
    }
    return out;
}

/// pullWalk of a scanner that `open` makes; a ParseError of the constructor (a bad byte order
/// mark) is reported the same way.
template <typename Open>
std::string pullWalkOf(const Open& open) {
    try {
        JsonScanner in = open();
        return pullWalk(in);
    } catch (const ParseError& e) {
        return std::string(" | ") + e.what();
    }
}

} // namespace stagecraft::fuzz
