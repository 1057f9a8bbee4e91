// Edits as values: the text form and the JSON form read back what they write, and refusals name
// the word, the field and the rule.
#include "edit/edit.h"
#include "error.h"
#include "io/edit_list.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace {

using namespace stagecraft;

std::string refusal(const std::string& text) {
    try {
        parseEdit(text, "--edit");
    } catch (const ParseError& e) {
        // The message starts "--edit line 1, column C: "; the column is checked on its own.
        const std::string prefix = "--edit line 1, column " + std::to_string(e.column()) + ": ";
        const std::string message =
            e.message().starts_with(prefix) ? e.message().substr(prefix.size()) : e.message();
        return e.id() + " " + std::to_string(e.column()) + " | " + message;
    }
    return "accepted";
}

} // namespace

TEST_CASE("Edits print and read back in the text and JSON forms", "[edit]") {
    for (const char* text :
         {"move 1W3 after 1F5", "move 1W3 before 1F5", "move 2I4 to 7", "shift 1W3 +2", "shift 1W3 -1",
          "swap 1W3 1F5", "split 2B4", "split all", "merge 2B4", "merge all", "move p1:3F2 after p1:3I0",
          "pipe 5 to 1", "pipe 0 to 0", "add 2SYNC after 2W7", "add p1:3OPT to 5", "add 0SYNC before 0F1",
          "drop 2SYNC", "drop p1:3OPT", "move 2SYNC to 4"}) {
        INFO(text);
        const Edit edit = parseEdit(text);
        CHECK(formatEdit(edit, true) == text);
        CHECK(editFromJson(editToJson(edit, true), "edits[0]") == edit);
        CHECK(editFromJson(nlohmann::json(text), "edits[0]") == edit);
    }
    // I and B name the same op; split and merge always print B.
    CHECK(parseEdit("split 2I4") == parseEdit("split 2B4"));
    CHECK(editToJson(parseEdit("move 1W3 after 1F5"), true).dump() ==
          R"({"after":"1F5","edit":"move","op":"1W3"})");
    CHECK(editToJson(parseEdit("pipe 5 to 1"), true).dump() == R"({"edit":"pipe","mb":5,"to":1})");
    CHECK(editToJson(parseEdit("add 2SYNC after 2W7"), true).dump() ==
          R"({"after":"2W7","edit":"add","op":"2SYNC"})");
    CHECK(editToJson(parseEdit("drop p1:3SYNC"), true).dump() == R"({"edit":"drop","op":"p1:3SYNC"})");
}

TEST_CASE("A malformed edit names the word and the grammar", "[edit]") {
    CHECK(
        refusal("mv 1W3 after 1F5").starts_with("edit.syntax 1 | 'mv' is not an edit: an edit is 'move OP"));
    CHECK(refusal("move 1W3 beside 1F5") ==
          "edit.syntax 10 | 'beside': a move goes 'after', 'before' or 'to'");
    CHECK(refusal("move 1X3 after 1F5").starts_with("edit.syntax 6 | "));
    CHECK(refusal("shift 1W3 2") == "edit.syntax 11 | '2': a shift is a signed count of places, as +2 or -1");
    CHECK(refusal("move 1W3 to -1") == "edit.syntax 13 | '-1': an index is a count from 0, as 7");
    CHECK(refusal("shift 1W3 +-5") == "edit.syntax 11 | '+-5' is not a whole number");
    CHECK(refusal("shift 1W3 +99999999999999999999") ==
          "edit.syntax 11 | '+99999999999999999999' is not a whole number");
    CHECK(parseEdit("shift 1W3 -9223372036854775808").index == INT64_MIN);
    CHECK(refusal("split") ==
          "edit.syntax 1 | 'split' takes 1 word(s) after it (split OP or split all), found 0");
    CHECK(refusal("swap 1W3 1F5 1F6") ==
          "edit.syntax 14 | 'swap' takes 2 word(s) after it (swap OP OP), found 3");
    CHECK(refusal("").starts_with("edit.syntax 1 | an empty edit"));
    CHECK(refusal("pipe 5 into 1") == "edit.syntax 8 | 'into': a pipe edit reads 'pipe MB to PIPE'");
    CHECK(refusal("pipe 1F5 to 1") == "edit.syntax 6 | '1F5' is not a whole number");
    CHECK(refusal("pipe 5 to 256") == "edit.syntax 11 | '256': a pipe is at most 255");
    CHECK(refusal("add 2SYNC beside 2W7") ==
          "edit.syntax 11 | 'beside': an add goes 'after', 'before' or 'to'");
    CHECK(refusal("drop 2SYNC 2W7") == "edit.syntax 12 | 'drop' takes 1 word(s) after it (drop OP, as drop "
                                       "2SYNC), found 2");
    CHECK(refusal("pipe 5 to") ==
          "edit.syntax 8 | 'pipe' takes 3 word(s) after it (pipe MB to PIPE), found 2");
    for (const auto& [json, message] :
         {std::pair{R"({"edit": "pipe", "mb": -1, "to": 1})",
                    "edits[2].mb: a micro-batch counts from 0, not -1"},
          std::pair{R"({"edit": "pipe", "mb": 3, "to": 300})",
                    "edits[2].to: a pipe counts from 0 (to 255), not 300"},
          std::pair{R"({"edit": "pipe", "mb": 3})", "edits[2].to: must be a whole number"}}) {
        try {
            editFromJson(nlohmann::json::parse(json), "edits[2]");
            FAIL("accepted " << json);
        } catch (const ValidationError& e) {
            CHECK(e.message() == message);
        }
    }
    try {
        editFromJson(nlohmann::json::parse(R"({"edit": "move", "op": "1W3", "after": "1F5", "to": 3})"),
                     "edits[2]");
        FAIL("accepted");
    } catch (const ValidationError& e) {
        CHECK(e.field() == "edits[2]");
        CHECK(e.message() == "edits[2]: a move has exactly one of \"after\", \"before\" and \"to\"");
    }
    try {
        editFromJson(nlohmann::json::parse(R"({"edit": "add", "op": "2SYNC"})"), "edits[4]");
        FAIL("accepted");
    } catch (const ValidationError& e) {
        CHECK(e.message() == "edits[4]: an add has exactly one of \"after\", \"before\" and \"to\"");
    }
}

TEST_CASE("An edit list reads back what it writes and names a bad field", "[edit]") {
    EditBase base;
    base.schedule = "1f1b";
    base.params = {4, 8, 1};
    const std::string json = editListToJson(base, {"split all", "move 1W7 to 23"});
    const EditList list = parseEditList(json, "list.json");
    CHECK(list.base.schedule == "1f1b");
    CHECK(list.base.params.pp == 4);
    CHECK(list.base.params.microbatches == 8);
    const ListedEdits listed = readListEdits(list, 1);
    REQUIRE(listed.edits.size() == 2);
    CHECK(listed.edits[1] == parseEdit("move 1W7 to 23"));
    CHECK(editListToJson(list.base, listed.texts) == json);

    auto error = [](const std::string& text) {
        try {
            readListEdits(parseEditList(text, "list.json"), 1);
        } catch (const Error& e) {
            return e.id() + " | " + e.message();
        }
        return std::string("accepted");
    };
    CHECK(error(R"({"stagecraft_edits": 2, "base": {"schedule": "1f1b"}, "edits": []})") ==
          "edit.list | stagecraft_edits: = 2: this is version 1 of the edit list format, the only one read");
    CHECK(
        error(R"({"stagecraft_edits": 1, "base": {"schedule": "1f1b", "params": {"pp": 0}}, "edits": []})") ==
        "edit.list | base.params.pp: = 0: must be a whole number in 1..4096");
    CHECK(error(R"({"stagecraft_edits": 1, "base": {"schedule": "1f1b"}, "edits": ["split 2F1x"]})")
              .starts_with("edit.json | edits[0] line 1, column 7: "));
    CHECK(error(R"({"stagecraft_edits": 1, "base": {}, "edits": []})") ==
          "edit.list | base: names exactly one of \"schedule\" (a registered schedule) and \"file\"");
    CHECK(error("{\"stagecraft_edits\": 1,") ==
          "edit.list | list.json line 1, column 24: malformed JSON: syntax error while parsing object key - "
          "unexpected end of input; expected string literal");
}
