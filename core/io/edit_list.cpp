#include "io/edit_list.h"

#include "error.h"
#include "generators/registry.h"
#include "io/schedule_file.h"
#include "json_failure.h"
#include "size_limits.h"

#include <nlohmann/json.hpp>

namespace stagecraft {

namespace {

using Json = nlohmann::json;

// An edit list is a line per edit: the size of a project file is plenty.
constexpr std::size_t kMaxEditListBytes = kMaxProjectBytes;

[[noreturn]] void refuse(const std::string& field, const std::string& message) {
    throw ValidationError("edit.list", field, field + ": " + message);
}

EditBase readBase(const Json& json) {
    if (!json.is_object())
        refuse("base", "must be {\"schedule\": NAME, \"params\": {...}} or {\"file\": PATH}");
    EditBase base;
    const bool named = json.contains("schedule"), file = json.contains("file");
    if (named == file)
        refuse("base", "names exactly one of \"schedule\" (a registered schedule) and \"file\"");
    for (const auto& [key, value] : json.items())
        if (key != "schedule" && key != "params" && key != "file")
            refuse("base." + key, "unknown key; a base has \"schedule\" and \"params\", or \"file\"");
    if (file) {
        if (!json["file"].is_string() || json["file"].get<std::string>().empty())
            refuse("base.file", "must be the path of a schedule file (.csv, .json)");
        base.file = json["file"].get<std::string>();
        return base;
    }
    if (!json["schedule"].is_string()) refuse("base.schedule", "must be a schedule name such as \"1f1b\"");
    base.schedule = json["schedule"].get<std::string>();
    if (!json.contains("params")) return base;
    const Json& params = json["params"];
    if (!params.is_object())
        refuse("base.params", "must be an object such as {\"pp\": 4, \"microbatches\": 8}");
    for (const auto& [key, value] : params.items()) {
        const ScheduleParamField* row = nullptr;
        for (const ScheduleParamField& field : scheduleParamFields())
            if (field.name == key) row = &field;
        if (!row)
            refuse("base.params." + key, "unknown parameter; the parameters are pp, microbatches, chunks");
        if (!value.is_number_integer() || value.get<std::int64_t>() < row->min ||
            value.get<std::int64_t>() > row->max)
            refuse("base.params." + key, "= " + value.dump() + ": must be a whole number in " +
                                             std::to_string(row->min) + ".." + std::to_string(row->max));
        base.params.*(row->member) = value.get<int>();
    }
    return base;
}

} // namespace

std::string editListToJson(const EditBase& base, const std::vector<std::string>& texts) {
    Json out = Json::object();
    out["stagecraft_edits"] = kEditListVersion;
    Json b = Json::object();
    if (!base.file.empty()) {
        b["file"] = base.file;
    } else {
        b["schedule"] = base.schedule;
        Json params = Json::object();
        for (const ScheduleParamField& field : scheduleParamFields())
            params[std::string(field.name)] = base.params.*(field.member);
        b["params"] = params;
    }
    out["base"] = b;
    out["edits"] = texts;
    return out.dump(2) + "\n";
}

EditList parseEditList(std::string_view text, const std::string& source) {
    if (text.size() > kMaxEditListBytes)
        throw ParseError("edit.list", source, 0, 0,
                         "the text has " + std::to_string(text.size()) + " bytes; an edit list is at most " +
                             std::to_string(kMaxEditListBytes));
    Json json;
    try {
        json = Json::parse(text.begin(), text.end());
    } catch (const Json::exception&) {
        const JsonFailure failure = findJsonFailure(text);
        throw ParseError("edit.list", source, failure.at.line, failure.at.column,
                         "malformed JSON: " + failure.reason);
    }
    if (!json.is_object())
        refuse("(top)", "an edit list is a JSON object with \"stagecraft_edits\", \"base\", \"edits\"");
    const auto version = json.find("stagecraft_edits");
    if (version == json.end() || !version->is_number_integer() ||
        version->get<std::int64_t>() != kEditListVersion)
        refuse("stagecraft_edits", (version == json.end() ? std::string("missing") : "= " + version->dump()) +
                                       ": this is version " + std::to_string(kEditListVersion) +
                                       " of the edit list format, the only one read");
    for (const auto& [key, value] : json.items())
        if (key != "stagecraft_edits" && key != "base" && key != "edits")
            refuse(key, "unknown key; an edit list has \"stagecraft_edits\", \"base\" and \"edits\"");
    if (!json.contains("base")) refuse("base", "missing: the schedule the edits start from");
    EditList list;
    list.base = readBase(json["base"]);
    const auto edits = json.find("edits");
    if (edits == json.end() || !edits->is_array()) refuse("edits", "must be a list of edits");
    for (const Json& item : *edits) {
        if (!item.is_string() && !item.is_object())
            refuse("edits[" + std::to_string(list.items.size()) + "]",
                   "an edit is a string such as \"split 2B4\" or an object such as "
                   "{\"edit\": \"split\", \"op\": \"2B4\"}");
        list.items.push_back(item.dump());
    }
    return list;
}

ListedEdits readListEdits(const EditList& list, int slices) {
    ListedEdits out;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const Json item = Json::parse(list.items[i]); // written by parseEditList: well formed
        out.edits.push_back(editFromJson(item, "edits[" + std::to_string(i) + "]", slices));
        out.texts.push_back(item.is_string() ? item.get<std::string>()
                                             : formatEdit(out.edits.back(), false, slices));
    }
    return out;
}

Schedule loadEditBase(const EditBase& base, const std::filesystem::path& folder) {
    if (!base.file.empty()) {
        const std::filesystem::path path(base.file);
        return readScheduleFile(path.is_absolute() ? path : folder / path);
    }
    return generateSchedule(base.schedule, base.params);
}

} // namespace stagecraft
