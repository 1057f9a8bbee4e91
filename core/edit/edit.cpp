#include "edit/edit.h"

#include "error.h"
#include "ir/op_name.h"

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

namespace stagecraft {

namespace {

constexpr const char* kGrammar =
    "an edit is 'move OP after|before OP', 'move OP to INDEX', 'shift OP +N|-N', 'swap OP OP', "
    "'split OP|all', 'merge OP|all', 'pipe MB to PIPE', 'add SYNC|OPT after|before OP', 'add SYNC|OPT to "
    "INDEX' or 'drop SYNC|OPT', with OP an op name such as 1W3 and SYNC / OPT one such as 2SYNC / 2OPT";

struct Word {
    std::string_view text;
    int column = 0; // 1-based
};

std::vector<Word> words(std::string_view text) {
    std::vector<Word> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
        const std::size_t begin = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
        if (i > begin) out.push_back({text.substr(begin, i - begin), int(begin) + 1});
    }
    return out;
}

const char* kindWord(EditKind kind) {
    switch (kind) {
    case EditKind::Move:
        return "move";
    case EditKind::Shift:
        return "shift";
    case EditKind::Swap:
        return "swap";
    case EditKind::Split:
        return "split";
    case EditKind::Merge:
        return "merge";
    case EditKind::Pipe:
        return "pipe";
    case EditKind::Add:
        return "add";
    case EditKind::Drop:
        return "drop";
    }
    return "?";
}

/// An op an edit names: parseOpName's, and with sequence slices a compute op must name its slice,
/// since "2F3" alone would be any of micro-batch 3's slices (search reads it so; an edit moves one).
std::optional<Op> editOpName(std::string_view text, std::string* why, int slices) {
    std::optional<Op> op = parseOpName(text, why, slices);
    if (op && slices > 1 && isComputeKind(op->kind) && text.find('.') == std::string_view::npos) {
        const std::string name(text);
        if (why)
            *why = "'" + name + "': the schedule cuts each micro-batch into " + std::to_string(slices) +
                   " sequence slices, so an edit names one: " + name + ".0 .. " + name + "." +
                   std::to_string(slices - 1);
        return std::nullopt;
    }
    return op;
}

class EditReader {
  public:
    EditReader(std::string_view text, const std::string& source, int slices)
        : m_source(source), m_words(words(text)), m_slices(slices) {}

    Edit read() {
        if (m_words.empty()) fail(1, "an empty edit: " + std::string(kGrammar));
        const Word& head = m_words[0];
        Edit edit;
        if (head.text == "move" || head.text == "add") {
            edit.kind = head.text == "move" ? EditKind::Move : EditKind::Add;
            expectWords(4, std::string(head.text) + " OP after|before OP, or " + std::string(head.text) +
                               " OP to INDEX");
            edit.op = op(1);
            const Word& where = m_words[2];
            if (where.text == "after" || where.text == "before") {
                edit.anchor = where.text == "after" ? MoveAnchor::After : MoveAnchor::Before;
                edit.other = op(3);
            } else if (where.text == "to") {
                edit.anchor = MoveAnchor::Index;
                edit.index = number(3, false);
            } else {
                fail(where.column, "'" + std::string(where.text) +
                                       "': " + (edit.kind == EditKind::Add ? "an add" : "a move") +
                                       " goes 'after', 'before' or 'to'");
            }
        } else if (head.text == "shift") {
            edit.kind = EditKind::Shift;
            expectWords(3, "shift OP +N or shift OP -N");
            edit.op = op(1);
            edit.index = number(2, true);
        } else if (head.text == "drop") {
            edit.kind = EditKind::Drop;
            expectWords(2, "drop OP, as drop 2SYNC");
            edit.op = op(1);
        } else if (head.text == "swap") {
            edit.kind = EditKind::Swap;
            expectWords(3, "swap OP OP");
            edit.op = op(1);
            edit.other = op(2);
        } else if (head.text == "split" || head.text == "merge") {
            edit.kind = head.text == "split" ? EditKind::Split : EditKind::Merge;
            expectWords(2, std::string(head.text) + " OP or " + std::string(head.text) + " all");
            if (m_words[1].text == "all")
                edit.all = true;
            else
                edit.op = op(1);
        } else if (head.text == "pipe") {
            edit.kind = EditKind::Pipe;
            expectWords(4, "pipe MB to PIPE");
            edit.op.mb = int(checkedNumber(1, "a micro-batch", std::numeric_limits<std::int32_t>::max()));
            if (m_words[2].text != "to")
                fail(m_words[2].column,
                     "'" + std::string(m_words[2].text) + "': a pipe edit reads 'pipe MB to PIPE'");
            edit.index = checkedNumber(3, "a pipe", 255);
        } else {
            fail(head.column, "'" + std::string(head.text) + "' is not an edit: " + kGrammar);
        }
        return edit;
    }

  private:
    [[noreturn]] void fail(int column, const std::string& message) const {
        throw ParseError("edit.syntax", m_source, 1, column, message);
    }

    void expectWords(std::size_t count, const std::string& form) const {
        if (m_words.size() == count) return;
        const int column = m_words.size() > count ? m_words[count].column : m_words.back().column;
        fail(column, "'" + std::string(m_words[0].text) + "' takes " + std::to_string(count - 1) +
                         " word(s) after it (" + form + "), found " + std::to_string(m_words.size() - 1));
    }

    Op op(std::size_t i) const {
        std::string why;
        const std::optional<Op> parsed = editOpName(m_words[i].text, &why, m_slices);
        if (!parsed) fail(m_words[i].column, why);
        return *parsed;
    }

    std::int64_t number(std::size_t i, bool signedOffset) const {
        std::string_view text = m_words[i].text;
        const bool sign = !text.empty() && (text.front() == '+' || text.front() == '-');
        if (signedOffset != sign)
            fail(m_words[i].column, "'" + std::string(text) + "': " +
                                        (signedOffset ? "a shift is a signed count of places, as +2 or -1"
                                                      : "an index is a count from 0, as 7"));
        // from_chars reads a '-' (so the most negative number too) but not a '+'.
        const bool plus = !text.empty() && text.front() == '+';
        if (plus) text.remove_prefix(1);
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool digits = !text.empty() && (text[0] == '-' ? !plus : text[0] >= '0' && text[0] <= '9');
        if (!digits || error != std::errc() || end != text.data() + text.size())
            fail(m_words[i].column, "'" + std::string(m_words[i].text) + "' is not a whole number");
        return value;
    }

    /// A count from 0 up to `most`, naming what it counts in the message.
    std::int64_t checkedNumber(std::size_t i, const char* what, std::int64_t most) const {
        const std::int64_t value = number(i, false);
        if (value > most)
            fail(m_words[i].column,
                 "'" + std::string(m_words[i].text) + "': " + what + " is at most " + std::to_string(most));
        return value;
    }

    const std::string& m_source;
    std::vector<Word> m_words;
    int m_slices = 1;
};

[[noreturn]] void jsonFail(const std::string& field, const std::string& message) {
    throw ValidationError("edit.json", field, field + ": " + message);
}

Op jsonOp(const nlohmann::json& json, const std::string& key, const std::string& path, int slices) {
    const std::string field = path + "." + key;
    const auto it = json.find(key);
    if (it == json.end() || !it->is_string()) jsonFail(field, "must be an op name such as \"1W3\"");
    std::string why;
    const std::optional<Op> op = editOpName(it->get<std::string>(), &why, slices);
    if (!op) jsonFail(field, why);
    return *op;
}

std::int64_t jsonInt(const nlohmann::json& json, const std::string& key, const std::string& path) {
    const auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) jsonFail(path + "." + key, "must be a whole number");
    return it->get<std::int64_t>();
}

} // namespace

std::string formatEdit(const Edit& edit, bool splitBackward, int slices) {
    std::string out = kindWord(edit.kind);
    out += ' ';
    if (edit.kind == EditKind::Pipe)
        return out + std::to_string(edit.op.mb) + " to " + std::to_string(edit.index);
    if ((edit.kind == EditKind::Split || edit.kind == EditKind::Merge) && edit.all) return out + "all";
    // A split or merge names the backward as a whole ("split 2B4"), whatever the schedule's form.
    const bool whole = edit.kind == EditKind::Split || edit.kind == EditKind::Merge;
    out += opName(edit.op, splitBackward && !whole, slices);
    switch (edit.kind) {
    case EditKind::Move:
    case EditKind::Add:
        if (edit.anchor == MoveAnchor::Index) return out + " to " + std::to_string(edit.index);
        return out + (edit.anchor == MoveAnchor::After ? " after " : " before ") +
               opName(edit.other, splitBackward, slices);
    case EditKind::Shift:
        return out + (edit.index >= 0 ? " +" : " ") + std::to_string(edit.index);
    case EditKind::Swap:
        return out + " " + opName(edit.other, splitBackward, slices);
    case EditKind::Split:
    case EditKind::Merge:
    case EditKind::Pipe:
    case EditKind::Drop:
        return out;
    }
    return out;
}

std::string formatEdit(const Edit& edit, const Schedule& schedule) {
    return formatEdit(edit, schedule.splitBackward, schedule.sequenceSlices);
}

std::string formatEdits(const std::vector<Edit>& edits, bool splitBackward, int slices) {
    std::string out;
    for (const Edit& edit : edits) {
        if (!out.empty()) out += "; ";
        out += formatEdit(edit, splitBackward, slices);
    }
    return out;
}

Edit parseEdit(std::string_view text, const std::string& source, int slices) {
    return EditReader(text, source, slices).read();
}

nlohmann::json editToJson(const Edit& edit, bool splitBackward, int slices) {
    nlohmann::json json = {{"edit", kindWord(edit.kind)}};
    if (edit.kind == EditKind::Pipe) {
        json["mb"] = edit.op.mb;
        json["to"] = edit.index;
        return json;
    }
    if ((edit.kind == EditKind::Split || edit.kind == EditKind::Merge) && edit.all) {
        json["op"] = "all";
        return json;
    }
    json["op"] = opName(
        edit.op, splitBackward && edit.kind != EditKind::Split && edit.kind != EditKind::Merge, slices);
    switch (edit.kind) {
    case EditKind::Move:
    case EditKind::Add:
        if (edit.anchor == MoveAnchor::Index)
            json["to"] = edit.index;
        else
            json[edit.anchor == MoveAnchor::After ? "after" : "before"] =
                opName(edit.other, splitBackward, slices);
        break;
    case EditKind::Shift:
        json["by"] = edit.index;
        break;
    case EditKind::Swap:
        json["with"] = opName(edit.other, splitBackward, slices);
        break;
    case EditKind::Split:
    case EditKind::Merge:
    case EditKind::Pipe:
    case EditKind::Drop:
        break;
    }
    return json;
}

Edit editFromJson(const nlohmann::json& json, const std::string& path, int slices) {
    if (json.is_string()) {
        try {
            return parseEdit(json.get<std::string>(), path, slices);
        } catch (const ParseError& e) {
            // The message names `path` and the column in the edit's text.
            throw ValidationError("edit.json", path, e.message());
        }
    }
    if (!json.is_object())
        jsonFail(path, "an edit is an object such as {\"edit\": \"split\", \"op\": \"2B4\"} "
                       "or a string such as \"split 2B4\"");
    const auto kind = json.find("edit");
    if (kind == json.end() || !kind->is_string())
        jsonFail(path + ".edit",
                 "must be one of \"move\", \"shift\", \"swap\", \"split\", \"merge\", \"pipe\", \"add\", "
                 "\"drop\"");
    const std::string word = kind->get<std::string>();
    Edit edit;
    if (word == "split" || word == "merge") {
        edit.kind = word == "split" ? EditKind::Split : EditKind::Merge;
        const auto op = json.find("op");
        if (op != json.end() && op->is_string() && op->get<std::string>() == "all")
            edit.all = true;
        else
            edit.op = jsonOp(json, "op", path, slices);
        return edit;
    }
    if (word == "pipe") {
        edit.kind = EditKind::Pipe;
        const std::int64_t mb = jsonInt(json, "mb", path);
        if (mb < 0 || mb > std::numeric_limits<std::int32_t>::max())
            jsonFail(path + ".mb", "a micro-batch counts from 0, not " + std::to_string(mb));
        edit.op.mb = int(mb);
        edit.index = jsonInt(json, "to", path);
        if (edit.index < 0 || edit.index > 255)
            jsonFail(path + ".to", "a pipe counts from 0 (to 255), not " + std::to_string(edit.index));
        return edit;
    }
    edit.op = jsonOp(json, "op", path, slices);
    if (word == "move" || word == "add") {
        edit.kind = word == "move" ? EditKind::Move : EditKind::Add;
        const int given =
            int(json.contains("after")) + int(json.contains("before")) + int(json.contains("to"));
        if (given != 1)
            jsonFail(path, std::string(word == "move" ? "a move" : "an add") +
                               " has exactly one of \"after\", \"before\" and \"to\"");
        if (json.contains("to")) {
            edit.index = jsonInt(json, "to", path);
            if (edit.index < 0)
                jsonFail(path + ".to", "an index counts from 0, not " + std::to_string(edit.index));
        } else {
            edit.anchor = json.contains("after") ? MoveAnchor::After : MoveAnchor::Before;
            edit.other = jsonOp(json, edit.anchor == MoveAnchor::After ? "after" : "before", path, slices);
        }
    } else if (word == "shift") {
        edit.kind = EditKind::Shift;
        edit.index = jsonInt(json, "by", path);
    } else if (word == "swap") {
        edit.kind = EditKind::Swap;
        edit.other = jsonOp(json, "with", path, slices);
    } else if (word == "drop") {
        edit.kind = EditKind::Drop;
    } else {
        jsonFail(path + ".edit", "'" + word +
                                     "' is not an edit: one of \"move\", \"shift\", \"swap\", "
                                     "\"split\", \"merge\", \"pipe\", \"add\", \"drop\"");
    }
    return edit;
}

} // namespace stagecraft
