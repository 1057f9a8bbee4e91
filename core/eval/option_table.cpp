#include "eval/option_table.h"

#include "error.h"
#include "number_text.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace stagecraft {

namespace {

[[noreturn]] void refuse(const OptionSpec& spec, const std::string& text, const std::string& rule) {
    const std::string flag = optionFlag(spec);
    throw ValidationError("option.value", flag, flag + " " + text + ": " + rule);
}

/// strtod over the whole text, nullopt for anything else (empty, trailing characters, overflow).
std::optional<double> wholeNumber(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(value)) return std::nullopt;
    return value;
}

} // namespace

std::string optionFlag(const OptionSpec& spec) {
    return "--" + std::string(spec.name);
}

void OptionValues::add(std::string_view name, std::string value) {
    auto it = m_values.find(name);
    if (it == m_values.end()) it = m_values.emplace(std::string(name), std::vector<std::string>{}).first;
    it->second.push_back(std::move(value));
}

bool OptionValues::has(std::string_view name) const {
    return m_values.find(name) != m_values.end();
}

const std::vector<std::string>& OptionValues::all(const OptionSpec& spec) const {
    static const std::vector<std::string> kNone;
    const auto it = m_values.find(spec.name);
    return it == m_values.end() ? kNone : it->second;
}

std::optional<std::string> OptionValues::one(const OptionSpec& spec) const {
    const auto& values = all(spec);
    if (values.empty()) return std::nullopt;
    if (values.size() > 1)
        refuse(spec, values.back(), "given " + std::to_string(values.size()) + " times; give it once");
    return values.front();
}

const OptionSpec& findOption(std::span<const OptionSpec> table, std::string_view name) {
    for (const OptionSpec& spec : table)
        if (spec.name == name) return spec;
    throw std::logic_error("no option --" + std::string(name) + " in the table");
}

double numberOption(const OptionSpec& spec, const std::string& text, double low, double high) {
    const auto value = wholeNumber(text);
    if (!value || *value < low || *value > high)
        refuse(spec, text, "must be a number from " + formatNumber(low) + " to " + formatNumber(high));
    return *value;
}

int integerOption(const OptionSpec& spec, const std::string& text, int low, int high) {
    const auto value = wholeNumber(text);
    if (!value || *value != std::floor(*value) || *value < low || *value > high)
        refuse(spec, text,
               "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    return static_cast<int>(*value);
}

std::vector<std::string> commaList(std::string_view text) {
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        if (comma > start) names.emplace_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return names;
}

std::string choiceOption(const OptionSpec& spec, const std::string& text,
                         std::span<const std::string_view> choices) {
    std::string list;
    for (const std::string_view choice : choices) {
        if (text == choice) return text;
        list += (list.empty() ? "" : ", ") + std::string(choice);
    }
    refuse(spec, text, "must be one of " + list);
}

} // namespace stagecraft
