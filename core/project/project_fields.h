#pragma once
// Every field of a Project described once: its JSON place, kind, unit, range, default and help,
// and how to read and write it on a Project. The JSON reader and writer, `--set` overrides, the
// validator's range checks and the GUI's forms all iterate this one table, so a field added here
// is everywhere at once.

#include "project/project.h"
#include "size_limits.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stagecraft {

enum class FieldKind {
    Int,        ///< JSON integer that fits `int`
    Double,     ///< JSON number, finite
    String,     ///< JSON string; min/max bound its length in bytes
    Enum,       ///< JSON string, one of `choices`
    StringList, ///< JSON array of strings; min/max bound the entry count
    StageCosts, ///< JSON array of {"stage", "f", "b", "w"}; min/max bound the entry count
    LayerCosts, ///< JSON array of {"first", "last", "f", "b", "w"}; min/max bound the entry count
    NumberList, ///< JSON array of numbers, each > 0 and finite; min/max bound the entry count
};

/// A field's value. Int -> int, Double -> double, String and Enum -> std::string (an enum holds
/// its choice name), StringList -> vector<string>, StageCosts -> vector<StageCostOverride>,
/// LayerCosts -> vector<LayerRangeCost>, NumberList -> vector<double>.
using FieldValue =
    std::variant<int, double, std::string, std::vector<std::string>, std::vector<StageCostOverride>,
                 std::vector<LayerRangeCost>, std::vector<double>>;

struct ProjectField {
    std::string_view path;    ///< dotted path, "model.layers"; also the `--set` name
    std::string_view section; ///< JSON object holding the key ("model"); "" for top-level keys
    std::string_view key;     ///< JSON key inside the section ("layers")
    FieldKind kind;
    std::string_view unit; ///< "µs", "GiB", "Gbit/s", ...; "" when the value has none
    double min;            ///< numbers: the range; String: length; lists: entry count
    double max;
    bool minExclusive;                         ///< the value must be > min (a time or a bandwidth)
    std::span<const std::string_view> choices; ///< Enum: the names, in the enum's order
    std::string_view defaultText;              ///< the struct default, written as `--set` takes it
    std::string_view help;                     ///< one line for forms, tooltips and docs
    FieldValue (*get)(const Project&);
    /// Stores `value` without checks: use setFieldValue, which checks the kind and the range.
    void (*set)(Project&, const FieldValue&);
    /// False for fields added after the format's first version: a project file has them only when
    /// they differ from the default, so files written before them stay in canonical form.
    bool writtenWhenDefault = true;
};

/// The table, in file order: name, schedules, then model, cluster, parallel, memory, costs.
/// The `stagecraft` format-version key is not a field (it is written, never set).
std::span<const ProjectField> projectFields();

/// The field with this dotted path, or nullptr.
const ProjectField* findProjectField(std::string_view path);

/// The JSON sections in file order: "model", "cluster", "parallel", "memory", "costs".
std::span<const std::string_view> projectSections();

/// "model.layers = 0: must be in 1..4096" when `value` breaks the field's range (or is not one
/// of its choices, or a list entry is out of range); nullopt when it is in range or of the wrong
/// kind. Cross-field rules live in project_validate.h.
std::optional<std::string> fieldRangeProblem(const ProjectField& field, const FieldValue& value);

/// Checks that `value` has the field's kind (ValidationError "project.type") and range
/// (ValidationError "project.field"), then stores it.
void setFieldValue(Project& project, const ProjectField& field, const FieldValue& value);

/// The value as `--set` takes it: 24, 0.5, bf16, 1f1b,zb-v, 0:1200:1100:600,3:900:900:450,
/// 0-5:3100:2900:2800,6-11:3000:2950:2850.
/// Numbers are written shortest-exact, so parsing the text gives the same value back.
std::string formatFieldValue(const FieldValue& value);

/// The range in words: "1..4096", "> 0 and <= 1e+09", "one of fp16, bf16, fp32".
std::string describeFieldRange(const ProjectField& field);

/// "int", "number", "string", "enum", "list of names", "list of stage costs", "list of layer costs".
std::string_view fieldKindName(FieldKind kind);

} // namespace stagecraft
