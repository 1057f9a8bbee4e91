#include "io/schedule_json.h"

#include "error.h"
#include "io/schedule_json_packed.h"
#include "ir/action.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "json_failure.h"
#include "validate/validator.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace stagecraft {

namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 16; // the format nests 4 deep; more is a broken or hostile file
constexpr int kMaxChunks = kMaxFileChunks;
constexpr std::string_view kSync = kSyncSuffix;
constexpr std::string_view kOptimizer = kOptimizerSuffix;
constexpr std::array<std::string_view, 13> kKeys{
    "stagecraft_schedule", "name",           "devices",   "pipes", "stages_per_pipe", "microbatches",
    "chunks_per_device",   "split_backward", "placement", "order", "overlapped",      "whole_backward",
    "sequence_slices"};

std::string jsonString(const std::string& text) {
    return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// A value for a message, cut short.
std::string shortDump(const Json& value) {
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

std::string indexPath(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

/// 1-based line and column of byte offset `offset` of `text`.
std::pair<int, int> lineColumn(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    const std::string_view before = text.substr(0, offset);
    const int line = 1 + int(std::count(before.begin(), before.end(), '\n'));
    const std::size_t lastNewline = before.rfind('\n');
    const std::size_t lineStart = lastNewline == std::string_view::npos ? 0 : lastNewline + 1;
    return {line, int(offset - lineStart) + 1};
}

class JsonReader {
  public:
    explicit JsonReader(const std::string& source) : m_source(source) {}

    Schedule read(std::string_view text, ScheduleJsonPass pass) {
        checkDepth(text);
        // One pass that packs the op lists; anything it does not cover (bad JSON, a list of
        // something else) is read as a whole document below, for the exact message.
        std::optional<PackedScheduleJson> packed;
        if (pass == ScheduleJsonPass::Packed) packed = readPackedScheduleJson(text);
        if (packed) {
            m_packed = &*packed;
            try {
                Schedule s = readSchedule(packed->rest);
                m_packed = nullptr;
                return s;
            } catch (const Json::exception& e) {
                m_packed = nullptr;
                throw ParseError("schedule_json.syntax", m_source, 0, 0,
                                 "unexpected JSON value: " + jsonFailureReason(e));
            } catch (...) {
                m_packed = nullptr;
                throw;
            }
        }
        Json root;
        try {
            root = Json::parse(text.begin(), text.end());
        } catch (const Json::parse_error& e) {
            const auto [line, column] = lineColumn(text, e.byte == 0 ? 0 : e.byte - 1);
            std::string reason = e.what();
            const std::size_t colon = reason.find(": ");
            if (reason.find("parse error") != std::string::npos && colon != std::string::npos)
                reason = reason.substr(colon + 2);
            throw ParseError("schedule_json.syntax", m_source, line, column, "malformed JSON: " + reason);
        } catch (const Json::exception& e) {
            // A number that overflows (1e400) and the like: the library gives no position.
            const TextPosition at = jsonFailurePosition(text);
            throw ParseError("schedule_json.syntax", m_source, at.line, at.column,
                             "malformed JSON: " + jsonFailureReason(e));
        }
        try {
            return readSchedule(root);
        } catch (const Json::exception& e) {
            // Every value is type-checked before use; should one slip through, it is still the
            // file's fault and reported as such, never the library's exception.
            throw ParseError("schedule_json.syntax", m_source, 0, 0,
                             "unexpected JSON value: " + jsonFailureReason(e));
        }
    }

  private:
    [[noreturn]] void fail(const char* id, const std::string& path, const std::string& message) const {
        throw ValidationError(id, path, m_source + ": " + (path.empty() ? "" : path + ": ") + message);
    }

    void checkDepth(std::string_view text) const {
        int depth = 0;
        bool inString = false;
        for (std::size_t i = 0; i < text.size(); ++i) {
            const char c = text[i];
            if (inString) {
                if (c == '\\')
                    ++i;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                if (++depth > kMaxDepth) {
                    const auto [line, column] = lineColumn(text, i);
                    throw ParseError("schedule_json.syntax", m_source, line, column,
                                     "JSON nested deeper than " + std::to_string(kMaxDepth) +
                                         " levels: a schedule file nests 4");
                }
            } else if (c == ']' || c == '}') {
                --depth;
            }
        }
    }

    const Json& member(const Json& object, std::string_view key, const std::string& where) const {
        const auto it = object.find(key);
        if (it == object.end())
            fail("schedule_json.field", where.empty() ? std::string(key) : where + "." + std::string(key),
                 "missing");
        return *it;
    }

    int readInt(const Json& value, const std::string& path, int min, int max) const {
        bool ok = value.is_number_integer();
        std::int64_t number = 0;
        if (ok && value.is_number_unsigned()) {
            const auto u = value.get<std::uint64_t>();
            ok = u <= std::uint64_t(max);
            number = ok ? std::int64_t(u) : 0;
        } else if (ok) {
            number = value.get<std::int64_t>();
        }
        if (!ok || number < min || number > max)
            fail("schedule_json.field", path,
                 shortDump(value) + " is not an integer in " + std::to_string(min) + ".." +
                     std::to_string(max));
        return int(number);
    }

    Schedule readSchedule(const Json& root) {
        if (!root.is_object())
            fail("schedule_json.field", "",
                 "expected a JSON object with \"stagecraft_schedule\": 1, found " +
                     std::string(root.type_name()));
        const auto version = root.find("stagecraft_schedule");
        if (version == root.end())
            fail("schedule_json.field", "stagecraft_schedule",
                 "missing: a Stagecraft schedule file starts with \"stagecraft_schedule\": 1");
        if (!version->is_number_integer() || *version != kScheduleJsonVersion)
            fail("schedule_json.version", "stagecraft_schedule",
                 shortDump(*version) + ": this build reads version " + std::to_string(kScheduleJsonVersion));
        for (const auto& item : root.items())
            if (std::find(kKeys.begin(), kKeys.end(), item.key()) == kKeys.end()) {
                std::string known;
                for (std::string_view key : kKeys) known += (known.empty() ? "" : ", ") + std::string(key);
                fail("schedule_json.field", item.key(), "unknown key; the keys are " + known);
            }
        Schedule s;
        s.name = "schedule-json";
        if (const auto name = root.find("name"); name != root.end()) {
            if (!name->is_string())
                fail("schedule_json.field", "name",
                     "expected a string, found " + std::string(name->type_name()));
            s.name = name->get<std::string>();
        }
        s.devices = readInt(member(root, "devices", ""), "devices", 1, kMaxDevices);
        s.pipes = readInt(member(root, "pipes", ""), "pipes", 1, 2);
        s.stagesPerPipe =
            readInt(member(root, "stages_per_pipe", ""), "stages_per_pipe", 1, kMaxStagesPerPipe);
        s.microbatches = readInt(member(root, "microbatches", ""), "microbatches", 1, kMaxMicrobatches);
        const auto chunks = root.find("chunks_per_device");
        const int chunkLimit =
            chunks == root.end() ? kMaxChunks : readInt(*chunks, "chunks_per_device", 1, kMaxChunks);
        const Json& split = member(root, "split_backward", "");
        if (!split.is_boolean())
            fail("schedule_json.field", "split_backward",
                 shortDump(split) + " is not true or false (whether B and W are separate ops)");
        s.splitBackward = split.get<bool>();
        // Micro-batches cut into sequence slices (Seq1F1B): ops name "<op>.<slice>" and
        // `microbatches` counts the slice units.
        if (const auto slices = root.find("sequence_slices"); slices != root.end()) {
            s.sequenceSlices = readInt(*slices, "sequence_slices", 1, kMaxSequenceSlices);
            if (s.microbatches % s.sequenceSlices != 0)
                fail("schedule_json.field", "sequence_slices",
                     "sequence_slices = " + std::to_string(s.sequenceSlices) +
                         " does not divide microbatches = " + std::to_string(s.microbatches) +
                         " (the slice units: micro-batches x slices)");
        }
        readPlacement(member(root, "placement", ""), s, chunkLimit);
        s.chunksPerDevice = 0;
        for (const auto& pipe : s.placement)
            for (const StageSlot& slot : pipe)
                s.chunksPerDevice = std::max(s.chunksPerDevice, slot.chunk + 1);
        if (chunks != root.end()) s.chunksPerDevice = chunkLimit;
        const Json& order = member(root, "order", "");
        if (m_packed && m_packed->order)
            readPackedOrder(*m_packed->order, s);
        else
            readOrder(order, s);
        if (const auto overlapped = root.find("overlapped"); overlapped != root.end()) {
            if (m_packed && m_packed->overlapped)
                readPackedHeads(*m_packed->overlapped, "overlapped", OpKind::F, s.overlapped, s);
            else
                readHeads(*overlapped, "overlapped", OpKind::F, s.overlapped, s);
        }
        if (const auto whole = root.find("whole_backward"); whole != root.end()) {
            if (m_packed && m_packed->wholeBackward)
                readPackedHeads(*m_packed->wholeBackward, "whole_backward", OpKind::B, s.wholeBackward, s);
            else
                readHeads(*whole, "whole_backward", OpKind::B, s.wholeBackward, s);
        }
        sortSlotHeads(s);
        checkSchedule(s);
        return s;
    }

    const Json& array(const Json& value, const std::string& path, std::size_t size, const char* what) const {
        if (!value.is_array())
            fail("schedule_json.field", path,
                 "expected an array of " + std::string(what) + ", found " + std::string(value.type_name()));
        if (size > 0 && value.size() != size)
            fail("schedule_json.field", path,
                 "has " + std::to_string(value.size()) + " entries, expected " + std::to_string(size) + " (" +
                     what + ")");
        return value;
    }

    void readPlacement(const Json& value, Schedule& s, int chunkLimit) const {
        array(value, "placement", std::size_t(s.pipes), "pipes, one per pipe");
        s.placement.assign(std::size_t(s.pipes), {});
        for (std::size_t pipe = 0; pipe < value.size(); ++pipe) {
            const std::string pipePath = indexPath("placement", pipe);
            const Json& stages =
                array(value[pipe], pipePath, std::size_t(s.stagesPerPipe), "stages_per_pipe slots");
            s.placement[pipe].resize(stages.size());
            for (std::size_t stage = 0; stage < stages.size(); ++stage) {
                const std::string path = indexPath(pipePath, stage);
                const Json& slot = stages[stage];
                if (!slot.is_object() || slot.size() != 2)
                    fail("schedule_json.field", path,
                         shortDump(slot) + " is not a stage slot {\"device\": d, \"chunk\": c}");
                s.placement[pipe][stage] = {
                    readInt(member(slot, "device", path), path + ".device", 0, s.devices - 1),
                    readInt(member(slot, "chunk", path), path + ".chunk", 0, chunkLimit - 1)};
            }
        }
    }

    void readOrder(const Json& value, Schedule& s) const {
        array(value, "order", std::size_t(s.devices), "devices, one op list per device");
        std::size_t total = 0;
        for (std::size_t d = 0; d < value.size(); ++d) {
            array(value[d], indexPath("order", d), 0, "op strings");
            total += value[d].size();
        }
        checkOpCount(total);
        s.order.assign(std::size_t(s.devices), {});
        for (std::size_t d = 0; d < value.size(); ++d) {
            const Json& ops = value[d];
            s.order[d].reserve(ops.size());
            for (std::size_t i = 0; i < ops.size(); ++i)
                s.order[d].push_back(readOp(
                    ops[i], [&] { return indexPath(indexPath("order", d), i); }, s));
        }
    }

    /// readOrder over the packed lists: the same checks and messages.
    void readPackedOrder(const std::vector<PackedStrings>& lists, Schedule& s) const {
        if (lists.size() != std::size_t(s.devices))
            fail("schedule_json.field", "order",
                 "has " + std::to_string(lists.size()) + " entries, expected " + std::to_string(s.devices) +
                     " (devices, one op list per device)");
        std::size_t total = 0;
        for (const PackedStrings& list : lists) total += list.size();
        checkOpCount(total);
        s.order.assign(std::size_t(s.devices), {});
        for (std::size_t d = 0; d < lists.size(); ++d) {
            s.order[d].reserve(lists[d].size());
            for (std::size_t i = 0; i < lists[d].size(); ++i)
                s.order[d].push_back(readOpText(
                    lists[d].at(m_packed->chars, i), [&] { return indexPath(indexPath("order", d), i); }, s));
        }
    }

    void checkOpCount(std::size_t total) const {
        if (total > kMaxOps)
            fail("schedule_json.size", "order",
                 std::to_string(total) + " ops: more than the limit of " + std::to_string(kMaxOps));
    }

    /// "overlapped" (the forwards that head overlapped forward-backward slots) and
    /// "whole_backward" (the B that run with their W as one unit): ir/overlap.h.
    void readHeads(const Json& value, const char* key, OpKind kind, std::vector<Op>& heads,
                   const Schedule& s) const {
        array(value, key, 0, "op strings");
        if (value.size() > s.opCount())
            fail("schedule_json.size", key,
                 std::to_string(value.size()) + " slots for " + std::to_string(s.opCount()) + " ops");
        for (std::size_t i = 0; i < value.size(); ++i)
            heads.push_back(checkHead(readOp(
                                          value[i], [&] { return indexPath(key, i); }, s),
                                      kind, indexPath(key, i), s));
    }

    void readPackedHeads(const PackedStrings& list, const char* key, OpKind kind, std::vector<Op>& heads,
                         const Schedule& s) const {
        if (list.size() > s.opCount())
            fail("schedule_json.size", key,
                 std::to_string(list.size()) + " slots for " + std::to_string(s.opCount()) + " ops");
        for (std::size_t i = 0; i < list.size(); ++i)
            heads.push_back(checkHead(readOpText(
                                          list.at(m_packed->chars, i), [&] { return indexPath(key, i); }, s),
                                      kind, indexPath(key, i), s));
    }

    /// `op` when it is of the kind the heads list names, else the error at `path`.
    Op checkHead(const Op& op, OpKind kind, const std::string& path, const Schedule& s) const {
        if (op.kind != kind)
            fail("schedule_json.field", path,
                 "'" + opName(op, s.splitBackward, s.sequenceSlices) + "' is not " +
                     (kind == OpKind::F
                          ? "a forward: an overlapped slot is named by the forward that heads it"
                          : "an input-gradient backward: a whole backward is named by its B"));
        return op;
    }

    /// `path()` names the value in messages; it is only built for one.
    template <typename Path>
    Op readOp(const Json& value, const Path& path, const Schedule& s) const {
        if (!value.is_string())
            fail("schedule_json.field", path(), shortDump(value) + " is not an op string such as \"0F1\"");
        return readOpText(value.get_ref<const std::string&>(), path, s);
    }

    template <typename Path>
    Op readOpText(std::string_view view, const Path& path, const Schedule& s) const {
        if (const std::size_t dot = view.rfind('.'); dot != std::string_view::npos) {
            // "<op>.<slice>": a sequence slice; the op's mb is its unit (micro-batch x k + slice).
            std::string why;
            if (!parseOpName(view, &why, s.sequenceSlices))
                fail("schedule_json.field", path(),
                     why + (s.sequenceSlices > 1 ? "" : " (sequence_slices is 1)"));
            const int slice = std::stoi(std::string(view.substr(dot + 1)));
            Op op = readOpText(view.substr(0, dot), path, s, s.microbatches / s.sequenceSlices);
            op.mb = op.mb * s.sequenceSlices + slice;
            return op;
        }
        return readOpText(view, path, s, s.microbatches);
    }

    /// An op name without a slice; its micro-batch is below `microbatches`.
    template <typename Path>
    Op readOpText(std::string_view view, const Path& path, const Schedule& s, int microbatches) const {
        const auto quoted = [&] { return "'" + std::string(view) + "'"; };
        std::optional<OpKind> special;
        std::string_view head;
        if (view.size() > kSync.size() && view.substr(view.size() - kSync.size()) == kSync) {
            special = OpKind::GradSync;
            head = view.substr(0, view.size() - kSync.size());
        } else if (view.size() > kOptimizer.size() &&
                   view.substr(view.size() - kOptimizer.size()) == kOptimizer) {
            special = OpKind::Optimizer;
            head = view.substr(0, view.size() - kOptimizer.size());
        }
        Action action;
        const bool recompute = !special && isRecomputeName(view);
        if (special) {
            // "<prefix><stage>SYNC" reads like the action "<prefix><stage>F0": one grammar for both.
            const auto parsed = parseAction(std::string(head) + "F0");
            if (!parsed)
                fail("schedule_json.field", path(),
                     quoted() + ": a gradient sync is '<stage>SYNC' and an optimizer step '<stage>OPT', with "
                                "'p1:' in front for the second pipe, as in 'p1:3SYNC'");
            action = *parsed;
        } else if (recompute) {
            std::string why;
            const auto parsed = parseOpName(view, &why);
            if (!parsed) fail("schedule_json.field", path(), why);
            action = Action{parsed->pipe, parsed->stage, ActionType::F, parsed->mb};
        } else {
            std::string why;
            const auto parsed = parseAction(view, &why);
            if (!parsed) fail("schedule_json.field", path(), why + " (or '<stage>SYNC', '<stage>OPT')");
            action = *parsed;
            if (action.type == ActionType::I && !s.splitBackward)
                fail("schedule_json.field", path(),
                     quoted() +
                         " is an input-gradient backward, but split_backward is false: write it as a whole "
                         "backward B");
            if (action.type == ActionType::B && s.splitBackward)
                fail("schedule_json.field", path(),
                     quoted() +
                         " is a whole backward, but split_backward is true: write its input-gradient part I "
                         "followed by its weight-gradient part W");
        }
        if (!special && action.mb >= microbatches)
            fail("schedule_json.field", path(),
                 quoted() + ": micro-batch " + std::to_string(action.mb) + " is outside 0.." +
                     std::to_string(microbatches - 1));
        if (action.pipe >= s.pipes)
            fail("schedule_json.field", path(),
                 quoted() + ": pipe " + std::to_string(action.pipe) + " is outside 0.." +
                     std::to_string(s.pipes - 1));
        if (action.stage >= s.stagesPerPipe)
            fail("schedule_json.field", path(),
                 quoted() + ": stage " + std::to_string(action.stage) + " is outside 0.." +
                     std::to_string(s.stagesPerPipe - 1));
        const StageSlot& slot = s.slot(action.pipe, action.stage);
        Op op;
        op.kind = special ? *special : recompute ? OpKind::R : opKindOf(action.type);
        op.pipe = std::uint8_t(action.pipe);
        op.chunk = std::uint16_t(slot.chunk);
        op.stage = action.stage;
        op.mb = special ? -1 : action.mb;
        return op;
    }

    void checkSchedule(const Schedule& s) const {
        // The validator indexes every (pipe, stage, micro-batch); a file declaring many of them but
        // holding few ops is refused before that index is allocated.
        std::size_t compute = 0;
        for (const auto& ops : s.order)
            compute += std::size_t(
                std::count_if(ops.begin(), ops.end(), [](const Op& op) { return isComputeKind(op.kind); }));
        const std::size_t needed = 2 * std::size_t(s.stagesPerPipe) * std::size_t(s.microbatches);
        if (compute < needed)
            fail("schedule_json.schedule", "order",
                 std::to_string(compute) + " compute ops, too few for " + std::to_string(s.stagesPerPipe) +
                     " stages per pipe and " + std::to_string(s.microbatches) +
                     " micro-batches: every micro-batch runs an F and a backward on each stage of its pipe "
                     "(at least " +
                     std::to_string(needed) + " ops)");
        const auto problems = findProblems(s, 1);
        if (problems.empty()) return;
        const Problem& p = problems.front();
        std::string path, op;
        if (p.device >= 0 && p.device < s.devices) {
            path = indexPath("order", std::size_t(p.device));
            const auto& ops = s.order[std::size_t(p.device)];
            if (p.position >= 0 && std::size_t(p.position) < ops.size()) {
                path = indexPath(path, std::size_t(p.position));
                op = " ('" + opName(ops[std::size_t(p.position)], s.splitBackward, s.sequenceSlices) + "')";
            }
        }
        throw ValidationError("schedule_json.schedule", path,
                              m_source + ": " + (path.empty() ? "" : path + op + ": ") + p.message);
    }

    const std::string& m_source;
    const PackedScheduleJson* m_packed = nullptr; ///< the packed op lists of the file being read
};

} // namespace

std::string scheduleToJson(const Schedule& s) {
    std::string out = "{\n";
    out += "  \"stagecraft_schedule\": " + std::to_string(kScheduleJsonVersion) + ",\n";
    out += "  \"name\": " + jsonString(s.name) + ",\n";
    out += "  \"devices\": " + std::to_string(s.devices) + ",\n";
    out += "  \"pipes\": " + std::to_string(s.pipes) + ",\n";
    out += "  \"stages_per_pipe\": " + std::to_string(s.stagesPerPipe) + ",\n";
    out += "  \"microbatches\": " + std::to_string(s.microbatches) + ",\n";
    out += "  \"chunks_per_device\": " + std::to_string(s.chunksPerDevice) + ",\n";
    out += std::string("  \"split_backward\": ") + (s.splitBackward ? "true" : "false") + ",\n";
    if (s.sequenceSlices > 1) out += "  \"sequence_slices\": " + std::to_string(s.sequenceSlices) + ",\n";
    out += "  \"placement\": [";
    for (std::size_t pipe = 0; pipe < s.placement.size(); ++pipe) {
        out += pipe == 0 ? "\n    [" : ",\n    [";
        for (std::size_t stage = 0; stage < s.placement[pipe].size(); ++stage) {
            const StageSlot& slot = s.placement[pipe][stage];
            out += (stage == 0 ? "" : ", ") + std::string("{\"device\": ") + std::to_string(slot.device) +
                   ", \"chunk\": " + std::to_string(slot.chunk) + "}";
        }
        out += "]";
    }
    out += "\n  ],\n  \"order\": [";
    for (std::size_t d = 0; d < s.order.size(); ++d) {
        out += d == 0 ? "\n    [" : ",\n    [";
        for (std::size_t i = 0; i < s.order[d].size(); ++i) {
            if (i > 0) out += ", ";
            out += '"';
            out += opName(s.order[d][i], s.splitBackward, s.sequenceSlices);
            out += '"';
        }
        out += "]";
    }
    out += "\n  ]";
    for (const auto& [key, heads] :
         {std::pair{"overlapped", &s.overlapped}, std::pair{"whole_backward", &s.wholeBackward}}) {
        if (heads->empty()) continue;
        out += ",\n  \"" + std::string(key) + "\": [";
        for (std::size_t i = 0; i < heads->size(); ++i)
            out += (i > 0 ? ", \"" : "\"") + opName((*heads)[i], s.splitBackward, s.sequenceSlices) + '"';
        out += "]";
    }
    out += "\n}\n";
    return out;
}

Schedule parseScheduleJson(std::string_view text, const std::string& source) {
    return JsonReader(source).read(text, ScheduleJsonPass::Packed);
}

Schedule parseScheduleJson(std::string_view text, const std::string& source, ScheduleJsonPass pass) {
    return JsonReader(source).read(text, pass);
}

} // namespace stagecraft
