#pragma once
// Command-line options described once, as data, for every front end that takes them: the
// description, the value's name and how many values an option takes live in a table of
// OptionSpec; each front end's parser (CLI11 in stagecraft-cli, QCommandLineParser in stagecraft)
// only collects the strings it was given into OptionValues, and core turns those into a request,
// with one validation and one set of messages ("--width 50: must be a number from 100 to 5000").

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

enum class OptionArity : std::uint8_t {
    Flag,     ///< no value: given or not
    One,      ///< one value, given at most once
    Repeated, ///< one value per use, as often as wanted (--set a=1 --set b=2)
    Many,     ///< a list of values; the CLI also takes them after one flag (--trace a b)
};

struct OptionSpec {
    std::string_view name;  ///< long name without the dashes: "width"
    std::string_view alias; ///< an older long name still accepted ("width-pt"), or empty
    char shortName;         ///< 's' for -s, or 0
    OptionArity arity;
    std::string_view valueName; ///< "PATH=VALUE"; empty for a flag
    std::string_view help;
};

/// "--name".
std::string optionFlag(const OptionSpec& spec);

/// The strings a front end's parser collected, by an option's long name, in the order given; a
/// flag counts one empty string per use.
class OptionValues {
  public:
    void add(std::string_view name, std::string value);
    bool has(std::string_view name) const;
    /// Every value of `spec` (empty when it was not given).
    const std::vector<std::string>& all(const OptionSpec& spec) const;
    /// The value of a one-value option, nullopt when absent. Throws ValidationError "option.value"
    /// when it was given more than once (neither parser may silently keep one of them).
    std::optional<std::string> one(const OptionSpec& spec) const;

  private:
    std::map<std::string, std::vector<std::string>, std::less<>> m_values;
};

/// The spec named `name` in `table`; throws std::logic_error when the table has none (a
/// programming error, not the user's).
const OptionSpec& findOption(std::span<const OptionSpec> table, std::string_view name);

/// `text` as a number from `low` to `high`, or ValidationError "option.value" naming the option,
/// the value and the range.
double numberOption(const OptionSpec& spec, const std::string& text, double low, double high);

/// `text` as a whole number from `low` to `high`, or ValidationError "option.value".
int integerOption(const OptionSpec& spec, const std::string& text, int low, int high);

/// The names of a comma list ("1f1b,,zb-v" -> 1f1b, zb-v), empty entries dropped: --schedule's
/// value in every front end.
std::vector<std::string> commaList(std::string_view text);

/// `text` when it is one of `choices`, or ValidationError "option.value" listing them.
std::string choiceOption(const OptionSpec& spec, const std::string& text,
                         std::span<const std::string_view> choices);

} // namespace stagecraft
