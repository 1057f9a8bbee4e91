#include "project/project_json.h"

#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "json_failure.h"
#include "project/field_text.h"
#include "project/project_fields.h"
#include "project/project_legacy.h"
#include "size_limits.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>

namespace stagecraft {

namespace {

/// The top-level key of a calibrated project's runtime fit (Project::runtimeFit).
constexpr std::string_view kRuntimeFitKey = "runtime_fit";

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::size_t kMaxDepth = 32; // a project nests 4 deep; this stops `[[[[...` early
constexpr std::string_view kStageKeys[] = {"stage", "f", "b", "w"};
constexpr std::string_view kLayerKeys[] = {"first", "last", "f", "b", "w"};
constexpr const char* kStageListRule = "must be a list of {\"stage\": 0, \"f\": ..., \"b\": ..., \"w\": ...}";

// ---------------------------------------------------------------- reading

/// A value as a message shows it: strings quoted, anything else as compact JSON, cut short.
std::string shown(const Json& value) {
    if (value.is_string()) return detail::quoted(value.get_ref<const std::string&>());
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

std::string indexed(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::string joined(std::span<const std::string_view> names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + std::string(names[i]);
    return out;
}

/// Messages of the JSON library may quote raw input bytes; keep ours valid UTF-8.
std::string sanitized(std::string text) {
    if (detail::isValidUtf8(text)) return text;
    for (char& c : text)
        if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    return text;
}

/// Tracks the path of the value being parsed, to refuse duplicate keys (the JSON library would
/// silently keep the last) and absurd nesting while parsing.
class KeyChecker {
  public:
    explicit KeyChecker(const std::string& source) : m_source(source) {}

    bool operator()(int /*depth*/, nlohmann::detail::parse_event_t event, Json& parsed) {
        using Event = nlohmann::detail::parse_event_t;
        switch (event) {
        case Event::object_start:
        case Event::array_start:
            if (m_frames.size() >= kMaxDepth)
                throw ParseError("project.json", m_source, 0, 0,
                                 "malformed project: nested deeper than " + std::to_string(kMaxDepth) +
                                     " levels");
            m_frames.push_back(Frame{event == Event::array_start, 0, childPath(), {}, {}});
            break;
        case Event::key: {
            Frame& top = m_frames.back();
            const std::string& key = parsed.get_ref<const std::string&>();
            if (!top.keys.insert(key).second)
                throw ParseError("project.json", m_source, 0, 0,
                                 "duplicate key " +
                                     detail::quoted(top.path.empty() ? key : top.path + "." + key));
            top.lastKey = key;
            break;
        }
        case Event::object_end:
        case Event::array_end:
            m_frames.pop_back();
            elementDone();
            break;
        case Event::value:
            elementDone();
            break;
        }
        return true;
    }

  private:
    struct Frame {
        bool array;
        std::size_t index;
        std::string path;
        std::set<std::string> keys;
        std::string lastKey;
    };

    std::string childPath() const {
        if (m_frames.empty()) return "";
        const Frame& top = m_frames.back();
        if (top.array) return indexed(top.path, top.index);
        return top.path.empty() ? top.lastKey : top.path + "." + top.lastKey;
    }
    void elementDone() {
        if (!m_frames.empty() && m_frames.back().array) ++m_frames.back().index;
    }

    const std::string& m_source;
    std::vector<Frame> m_frames;
};

Json parseJson(std::string_view text, const std::string& source) {
    if (text.size() > kMaxProjectBytes)
        throw ParseError("project.json", source, 0, 0,
                         "the text has " + std::to_string(text.size()) + " bytes; a project is at most " +
                             std::to_string(kMaxProjectBytes));
    try {
        return Json::parse(text.begin(), text.end(), KeyChecker(source));
    } catch (const Json::parse_error& e) {
        // Line and column of the offending byte (e.byte is 1-based; past the end at end of input).
        const std::size_t offset = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        const std::string_view before = text.substr(0, offset);
        const auto lastNewline = before.rfind('\n');
        const std::size_t line = 1 + std::size_t(std::count(before.begin(), before.end(), '\n'));
        const std::size_t column = lastNewline == std::string_view::npos ? offset + 1 : offset - lastNewline;
        std::string reason = e.what();
        if (const auto colon = reason.find(": "); colon != std::string::npos)
            reason = reason.substr(colon + 2);
        throw ParseError("project.json", source, int(std::min<std::size_t>(line, INT_MAX)),
                         int(std::min<std::size_t>(column, INT_MAX)), "malformed JSON: " + sanitized(reason));
    } catch (const Json::exception& e) {
        // Number overflow (1e400) and the like: the library gives no position; find it.
        const TextPosition at = jsonFailurePosition(text);
        throw ParseError("project.json", source, at.line, at.column,
                         "malformed JSON: " + jsonFailureReason(e));
    }
}

class Reader {
  public:
    explicit Reader(const std::string& source) : m_source(source) {}

    Project read(const Json& root) {
        if (!root.is_object())
            fail("project.type", "the top level must be an object {\"stagecraft\": " +
                                     std::to_string(kProjectFormatVersion) + ", ...}, not " + shown(root));
        m_version = readVersion(root);
        Project project;
        for (const auto& [key, value] : root.items()) {
            if (key == "stagecraft") continue;
            if (key == kRuntimeFitKey) {
                readRuntimeFit(project, value);
                continue;
            }
            if (const ProjectField* field = findProjectField(key); field && field->section.empty()) {
                readField(project, *field, value);
            } else if (isSection(key)) {
                readSection(project, key, value);
            } else {
                fail("project.key", "unknown key " + detail::quoted(key) + "; valid keys: " + topLevelKeys());
            }
        }
        requireSections(root, project);
        if (m_legacyChunkStages) {
            try {
                convertChunkStages(project, *m_legacyChunkStages);
            } catch (const Error& e) {
                fail("project.field", e.message());
            }
        }
        project.version = kProjectFormatVersion; // read in memory as the newest format
        return project;
    }

  private:
    [[noreturn]] void fail(const char* id, const std::string& message) const {
        throw ParseError(id, m_source, 0, 0, message);
    }
    [[noreturn]] void wrongType(const std::string& path, const Json& value, const std::string& rule) const {
        fail("project.type", path + " = " + shown(value) + ": " + rule);
    }

    static bool isSection(std::string_view key) {
        for (const auto section : projectSections())
            if (section == key) return true;
        return false;
    }

    static std::string topLevelKeys() {
        std::string out = "stagecraft";
        for (const auto& f : projectFields())
            if (f.section.empty()) out += ", " + std::string(f.path);
        for (const auto section : projectSections()) out += ", " + std::string(section);
        return out + ", " + std::string(kRuntimeFitKey);
    }

    void readRuntimeFit(Project& project, const Json& value) const {
        if (!value.is_object())
            wrongType(std::string(kRuntimeFitKey), value, "must be a runtime fit object {...}");
        try {
            project.runtimeFit = runtimeFitFromJson(value, m_source, std::string(kRuntimeFitKey) + ".");
        } catch (const ValidationError& e) {
            fail("project.field", e.message());
        }
    }

    // A section the project needs is never filled in silently with the built-in defaults: a
    // project that forgot its cluster would otherwise be timed on an A100 nobody chose. Unit costs
    // read nothing but the pipeline, so a unit-cost project needs only `parallel` and `costs`.
    void requireSections(const Json& root, const Project& project) const {
        const bool unit = project.costs.mode == CostMode::Unit && root.contains("costs");
        for (const std::string_view section : projectSections()) {
            const bool needed = !unit || section == "parallel" || section == "costs";
            if (!needed || root.contains(std::string(section))) continue;
            fail("project.section", "missing section \"" + std::string(section) + "\": a project needs " +
                                        joinedSections() +
                                        " (only parallel and costs when costs.mode is \"unit\"); "
                                        "`stagecraft-cli generate` and the app write every section");
        }
    }

    static std::string joinedSections() {
        std::string out;
        const auto sections = projectSections();
        for (std::size_t i = 0; i < sections.size(); ++i)
            out += (i == 0 ? "" : i + 1 == sections.size() ? " and " : ", ") + std::string(sections[i]);
        return out;
    }

    int readVersion(const Json& root) const {
        const auto it = root.find("stagecraft");
        if (it == root.end())
            fail("project.version", "missing key \"stagecraft\" (the format version): a Stagecraft project "
                                    "starts with {\"stagecraft\": " +
                                        std::to_string(kProjectFormatVersion) + ", ...}");
        if (!it->is_number_integer()) wrongType("stagecraft", *it, "the format version must be an integer");
        const bool newer = it->is_number_unsigned()
                               ? it->get<std::uint64_t>() > std::uint64_t(kProjectFormatVersion)
                               : it->get<std::int64_t>() > kProjectFormatVersion;
        const std::string version = it->dump();
        if (newer)
            fail("project.version", "written by a newer Stagecraft (format " + version +
                                        "); this build reads formats 1.." +
                                        std::to_string(kProjectFormatVersion));
        if (it->get<std::int64_t>() < 1)
            fail("project.version", "unknown format " + version + "; this build reads formats 1.." +
                                        std::to_string(kProjectFormatVersion));
        return int(it->get<std::int64_t>());
    }

    void readSection(Project& project, const std::string& section, const Json& object) {
        if (!object.is_object()) wrongType(section, object, "must be an object {...}");
        for (const auto& [key, value] : object.items()) {
            std::string path = section;
            path += '.';
            path += key;
            const ProjectField* field = findProjectField(path);
            if (!field && path == kLegacyChunkStages && m_version == 1) {
                // Format 1's per-stage overrides of one schedule: converted once all is read.
                m_legacyChunkStages = readStageList(path, value);
                continue;
            }
            if (!field) {
                std::string valid;
                for (const auto& f : projectFields())
                    if (f.section == section) valid += (valid.empty() ? "" : ", ") + std::string(f.key);
                std::string message = "unknown key " + detail::quoted(path);
                message += "; valid keys of ";
                message += section;
                message += ": ";
                message += valid;
                fail("project.key", message);
            }
            readField(project, *field, value);
        }
    }

    /// An integer of the JSON text, or a range error naming the text when it does not fit `int`
    /// (every int field's range lies inside int).
    int readInt(const std::string& path, const Json& value, const std::string& range) const {
        if (!value.is_number_integer()) wrongType(path, value, "must be an integer");
        const bool fits = value.is_number_unsigned()
                              ? value.get<std::uint64_t>() <= std::uint64_t(INT_MAX)
                              : value.get<std::int64_t>() >= INT_MIN && value.get<std::int64_t>() <= INT_MAX;
        if (!fits) fail("project.range", path + " = " + value.dump() + ": must be in " + range);
        return int(value.get<std::int64_t>());
    }

    double readNumber(const std::string& path, const Json& value) const {
        if (!value.is_number()) wrongType(path, value, "must be a number");
        const double number = value.get<double>();
        if (!std::isfinite(number)) wrongType(path, value, "must be a finite number");
        return number;
    }

    FieldValue readValue(const ProjectField& field, const Json& value) const {
        const std::string path(field.path);
        switch (field.kind) {
        case FieldKind::Int:
            return readInt(path, value, describeFieldRange(field));
        case FieldKind::Double:
            return readNumber(path, value);
        case FieldKind::String:
            if (!value.is_string()) wrongType(path, value, "must be a string");
            return value.get<std::string>();
        case FieldKind::Enum:
            if (!value.is_string()) wrongType(path, value, "must be " + describeFieldRange(field));
            return value.get<std::string>();
        case FieldKind::StringList: {
            if (!value.is_array()) wrongType(path, value, "must be a list of names [\"1f1b\", ...]");
            checkCount(field, value);
            std::vector<std::string> names;
            for (std::size_t i = 0; i < value.size(); ++i) {
                if (!value[i].is_string()) wrongType(indexed(path, i), value[i], "must be a string");
                names.push_back(value[i].get<std::string>());
            }
            return names;
        }
        case FieldKind::NumberList: {
            if (!value.is_array()) wrongType(path, value, "must be a list of numbers [1, 1.27, ...]");
            checkCount(field, value);
            std::vector<double> numbers;
            for (std::size_t i = 0; i < value.size(); ++i)
                numbers.push_back(readNumber(indexed(path, i), value[i]));
            return numbers;
        }
        case FieldKind::StageCosts:
            if (!value.is_array()) wrongType(path, value, kStageListRule);
            checkCount(field, value);
            return readStageList(path, value);
        case FieldKind::LayerCosts: {
            if (!value.is_array())
                wrongType(
                    path, value,
                    "must be a list of {\"first\": 0, \"last\": ..., \"f\": ..., \"b\": ..., \"w\": ...}");
            checkCount(field, value);
            std::vector<LayerRangeCost> ranges;
            for (std::size_t i = 0; i < value.size(); ++i)
                ranges.push_back(readLayerRange(indexed(path, i), value[i]));
            return ranges;
        }
        }
        return 0;
    }

    std::vector<StageCostOverride> readStageList(const std::string& path, const Json& value) const {
        if (!value.is_array()) wrongType(path, value, kStageListRule);
        std::vector<StageCostOverride> stages;
        for (std::size_t i = 0; i < value.size(); ++i)
            stages.push_back(readStage(indexed(path, i), value[i]));
        return stages;
    }

    void checkCount(const ProjectField& field, const Json& array) const {
        if (double(array.size()) > field.max)
            fail("project.range", std::string(field.path) + ": " + std::to_string(array.size()) +
                                      " entries; at most " + detail::formatNumber(field.max));
    }

    /// An entry object with exactly `keys` (each once: the parser refuses duplicates).
    void requireKeys(const std::string& path, const Json& entry,
                     std::span<const std::string_view> keys) const {
        if (!entry.is_object()) wrongType(path, entry, "must be an object {" + quotedList(keys) + "}");
        for (const auto& [key, value] : entry.items()) {
            if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                std::string keyPath = path;
                keyPath += '.';
                keyPath += key;
                fail("project.key",
                     "unknown key " + detail::quoted(keyPath) + "; valid keys: " + joined(keys));
            }
        }
        for (const auto key : keys)
            if (!entry.contains(key))
                fail("project.key",
                     path + ": missing key \"" + std::string(key) + "\"; each entry needs " + joined(keys));
    }

    static std::string quotedList(std::span<const std::string_view> keys) {
        std::string out;
        for (std::size_t i = 0; i < keys.size(); ++i)
            out += (i ? ", \"" : "\"") + std::string(keys[i]) + "\"";
        return out;
    }

    LayerRangeCost readLayerRange(const std::string& path, const Json& entry) const {
        requireKeys(path, entry, kLayerKeys);
        LayerRangeCost range;
        const std::string layers = "0.." + std::to_string(INT_MAX);
        range.first = readInt(path + ".first", entry["first"], layers);
        range.last = readInt(path + ".last", entry["last"], layers);
        range.f = readNumber(path + ".f", entry["f"]);
        range.b = readNumber(path + ".b", entry["b"]);
        range.w = readNumber(path + ".w", entry["w"]);
        return range;
    }

    StageCostOverride readStage(const std::string& path, const Json& entry) const {
        requireKeys(path, entry, kStageKeys);
        StageCostOverride stage;
        stage.stage = readInt(path + ".stage", entry["stage"], "0.." + std::to_string(kMaxDevices - 1));
        stage.f = readNumber(path + ".f", entry["f"]);
        stage.b = readNumber(path + ".b", entry["b"]);
        stage.w = readNumber(path + ".w", entry["w"]);
        return stage;
    }

    void readField(Project& project, const ProjectField& field, const Json& value) const {
        const FieldValue parsed = readValue(field, value);
        if (auto problem = fieldRangeProblem(field, parsed)) fail("project.range", *problem);
        field.set(project, parsed);
    }

    static constexpr std::string_view kLegacyChunkStages = "costs.chunk_stages";

    const std::string& m_source;
    int m_version = kProjectFormatVersion;
    std::optional<std::vector<StageCostOverride>> m_legacyChunkStages;
};

// ---------------------------------------------------------------- writing

OrderedJson toJson(const FieldValue& value) {
    struct Visitor {
        OrderedJson operator()(int v) const { return v; }
        OrderedJson operator()(double v) const { return v; }
        OrderedJson operator()(const std::string& v) const { return v; }
        OrderedJson operator()(const std::vector<std::string>& v) const {
            OrderedJson out = OrderedJson::array();
            for (const auto& name : v) out.push_back(name);
            return out;
        }
        OrderedJson operator()(const std::vector<double>& v) const {
            OrderedJson out = OrderedJson::array();
            for (const double number : v) out.push_back(number);
            return out;
        }
        OrderedJson operator()(const std::vector<StageCostOverride>& v) const {
            OrderedJson out = OrderedJson::array();
            for (const auto& s : v) out.push_back(timed({{"stage", s.stage}}, s.f, s.b, s.w));
            return out;
        }
        OrderedJson operator()(const std::vector<LayerRangeCost>& v) const {
            OrderedJson out = OrderedJson::array();
            for (const auto& r : v)
                out.push_back(timed({{"first", r.first}, {"last", r.last}}, r.f, r.b, r.w));
            return out;
        }
        /// A list entry: where it applies, then its f, b, w (the order the reader names them in).
        static OrderedJson timed(std::initializer_list<std::pair<const char*, int>> place, double f, double b,
                                 double w) {
            OrderedJson entry = OrderedJson::object();
            for (const auto& [key, value] : place) entry[key] = value;
            entry["f"] = f;
            entry["b"] = b;
            entry["w"] = w;
            return entry;
        }
    };
    return std::visit(Visitor{}, value);
}

// ---------------------------------------------------------------- --set

std::string_view trimmed(std::string_view text) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (;;) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

[[noreturn]] void unknownPath(std::string_view path) {
    const std::string quotedPath = detail::quoted(path);
    if (path == "stagecraft")
        throw ValidationError("project.key", "stagecraft",
                              "stagecraft is the file's format version and cannot be set");
    const auto dot = path.find('.');
    const std::string_view section = path.substr(0, dot);
    std::string fields;
    for (const auto& f : projectFields())
        if (f.section == section) fields += (fields.empty() ? "" : ", ") + std::string(f.path);
    std::string sections = joined(projectSections());
    if (!fields.empty()) {
        const std::string lead =
            dot == std::string_view::npos
                ? std::string(section) + " is a section; set one of its fields: "
                : "unknown field " + quotedPath + "; fields of " + std::string(section) + ": ";
        throw ValidationError("project.key", std::string(path), lead + fields);
    }
    throw ValidationError("project.key", std::string(path),
                          "unknown field " + quotedPath + "; top-level fields: name, schedules; sections: " +
                              sections + " (set section.field)");
}

bool parseInt(std::string_view text, long long& out) {
    const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
    return result.ec == std::errc() && result.ptr == text.data() + text.size() && !text.empty();
}

bool parseDouble(std::string_view text, double& out) {
    const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
    return result.ec == std::errc() && result.ptr == text.data() + text.size() && !text.empty();
}

FieldValue parseSetValue(const ProjectField& field, std::string_view raw) {
    const std::string path(field.path);
    const std::string_view text = field.kind == FieldKind::String ? raw : trimmed(raw);
    const auto wrong = [&](const std::string& rule) -> ValidationError {
        return ValidationError("project.type", path, path + " = " + detail::quoted(raw) + ": " + rule);
    };
    switch (field.kind) {
    case FieldKind::Int: {
        long long value = 0;
        if (!parseInt(text, value)) throw wrong("must be an integer");
        if (value < INT_MIN || value > INT_MAX)
            throw ValidationError("project.field", path,
                                  path + " = " + std::string(text) + ": must be in " +
                                      describeFieldRange(field));
        return int(value);
    }
    case FieldKind::Double: {
        double value = 0;
        if (!parseDouble(text, value)) {
            if (std::from_chars(text.data(), text.data() + text.size(), value).ec ==
                std::errc::result_out_of_range)
                throw wrong("must be a finite number");
            throw wrong("must be a number");
        }
        return value;
    }
    case FieldKind::String:
        if (!detail::isValidUtf8(text)) throw wrong("must be UTF-8 text");
        return std::string(text);
    case FieldKind::Enum:
        return std::string(text);
    case FieldKind::StringList: {
        std::vector<std::string> names;
        if (text.empty()) return names;
        for (const auto part : split(text, ',')) names.emplace_back(trimmed(part));
        return names;
    }
    case FieldKind::NumberList: {
        std::vector<double> numbers;
        if (text.empty()) return numbers;
        for (const auto part : split(text, ',')) {
            double number = 0;
            if (!parseDouble(trimmed(part), number))
                throw wrong("each entry must be a number, entries separated by commas (1,1.27,1.55,1.82)");
            numbers.push_back(number);
        }
        return numbers;
    }
    case FieldKind::StageCosts: {
        std::vector<StageCostOverride> stages;
        if (text.empty()) return stages;
        for (const auto part : split(text, ',')) {
            const auto numbers = split(trimmed(part), ':');
            long long stage = 0;
            StageCostOverride entry;
            if (numbers.size() != 4 || !parseInt(trimmed(numbers[0]), stage) || stage < INT_MIN ||
                stage > INT_MAX || !parseDouble(trimmed(numbers[1]), entry.f) ||
                !parseDouble(trimmed(numbers[2]), entry.b) || !parseDouble(trimmed(numbers[3]), entry.w))
                throw wrong(
                    "each entry must be stage:f:b:w with times in µs (0:1200:1100:600,3:900:900:450)");
            entry.stage = int(stage);
            stages.push_back(entry);
        }
        return stages;
    }
    case FieldKind::LayerCosts: {
        std::vector<LayerRangeCost> ranges;
        if (text.empty()) return ranges;
        for (const auto part : split(text, ',')) {
            const auto numbers = split(trimmed(part), ':');
            const auto bounds = numbers.empty() ? std::vector<std::string_view>{} : split(numbers[0], '-');
            long long first = 0, last = 0;
            LayerRangeCost entry;
            if (numbers.size() != 4 || bounds.size() != 2 || !parseInt(trimmed(bounds[0]), first) ||
                !parseInt(trimmed(bounds[1]), last) || first < INT_MIN || first > INT_MAX || last < INT_MIN ||
                last > INT_MAX || !parseDouble(trimmed(numbers[1]), entry.f) ||
                !parseDouble(trimmed(numbers[2]), entry.b) || !parseDouble(trimmed(numbers[3]), entry.w))
                throw wrong("each entry must be first-last:f:b:w, layers 0-based and inclusive, times in µs "
                            "(0-11:3000:2900:2800,12-23:3100:3000:2900)");
            entry.first = int(first);
            entry.last = int(last);
            ranges.push_back(entry);
        }
        return ranges;
    }
    }
    return 0;
}

} // namespace

std::string projectToJson(const Project& project) {
    OrderedJson root = OrderedJson::object();
    root["stagecraft"] = kProjectFormatVersion;
    const Project defaults;
    for (const auto& field : projectFields()) {
        if (!field.writtenWhenDefault && field.get(project) == field.get(defaults)) continue;
        OrderedJson& target = field.section.empty() ? root : root[std::string(field.section)];
        target[std::string(field.key)] = toJson(field.get(project));
    }
    if (project.runtimeFit) root[std::string(kRuntimeFitKey)] = runtimeFitJson(*project.runtimeFit);
    return root.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

Project parseProject(std::string_view text, const std::string& source) {
    const Json root = parseJson(text, source);
    try {
        return Reader(source).read(root);
    } catch (const Json::exception& e) {
        // Every value is type-checked before use; should one slip through, it is still the
        // file's fault and reported as such, never the library's exception.
        throw ParseError("project.json", source, 0, 0, "unexpected JSON value: " + jsonFailureReason(e));
    }
}

Project readProject(const std::filesystem::path& path) {
    // What it is and how big, from its first bytes and its size, before reading it.
    requireFileKind(path, FileKind::Project, "a project");
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxProjectBytes)
        throw ParseError("project.json", path.string(), 0, 0,
                         "the file has " + std::to_string(size) + " bytes; a project is at most " +
                             std::to_string(kMaxProjectBytes));
    return parseProject(readTextFile(path), path.string());
}

void writeProject(const Project& project, const std::filesystem::path& path) {
    for (const auto& field : projectFields())
        if (auto problem = fieldRangeProblem(field, field.get(project)))
            throw ValidationError("project.field", std::string(field.path), *problem);
    writeFileAtomically(path, projectToJson(project));
}

void setProjectField(Project& project, std::string_view dottedPath, std::string_view value) {
    const std::string_view path = trimmed(dottedPath);
    const ProjectField* field = findProjectField(path);
    if (!field) unknownPath(path);
    setFieldValue(project, *field, parseSetValue(*field, value));
}

void applyProjectOverride(Project& project, std::string_view assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string_view::npos)
        throw ValidationError("project.set", std::string(trimmed(assignment)),
                              "--set expects path=value (e.g. parallel.pp=8), got " +
                                  detail::quoted(assignment));
    setProjectField(project, assignment.substr(0, equals), assignment.substr(equals + 1));
}

} // namespace stagecraft
