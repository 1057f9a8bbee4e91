#pragma once
// A schedule file read in one SAX pass of nlohmann's parser: its small members as a JSON document,
// its op lists ("order"'s per-device arrays, "overlapped", "whole_backward": nearly all of a big
// file) as strings packed back to back in one buffer instead of a document node per op, so reading
// a file of millions of ops holds its text, about 4 bytes per op of strings plus 4 of offsets, and
// the ops. The schedule JSON reader (schedule_json.cpp) falls back to the whole document for the
// exact message when this pass does not apply.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// One array of op strings, packed: string i is chars[begin or ends[i-1], ends[i]).
struct PackedStrings {
    std::uint32_t begin = 0;
    std::vector<std::uint32_t> ends;

    std::size_t size() const { return ends.size(); }
    std::string_view at(const std::string& chars, std::size_t i) const {
        const std::uint32_t from = i == 0 ? begin : ends[i - 1];
        return std::string_view(chars).substr(from, ends[i] - from);
    }
};

// The implicit moves only move nlohmann::json, whose move constructor checks its invariant with an
// assert and does not throw.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PackedScheduleJson {
    /// The root object. Each packed member is in it with the value null, so that the reader's
    /// checks for required and unknown keys see every key the file has.
    nlohmann::json rest;
    std::string chars;                               ///< every packed string, back to back
    std::optional<std::vector<PackedStrings>> order; ///< one list per device
    std::optional<PackedStrings> overlapped, wholeBackward;
};

/// The packed reading of `text`, or nullopt when it does not apply: text that is not JSON (or that
/// nlohmann refuses, e.g. a number that overflows), a packed member that is not an array of strings
/// ("order": of arrays of strings), one given twice. The caller then parses the document as before,
/// which reports the problem with its line and column or the member's path.
std::optional<PackedScheduleJson> readPackedScheduleJson(std::string_view text);

} // namespace stagecraft
