#pragma once
// The one table of schedule generators. The GUI, the CLI, the runtime and the tests look
// schedules up here by name; forms and flags come from each entry's parameter specs.

#include "ir/schedule.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stagecraft {

/// What a generator is asked for. Names match the project file's `parallel` section.
struct ScheduleParams {
    int pp = 4;           ///< pipeline devices p
    int microbatches = 8; ///< m
    int chunks = 1;       ///< v: model chunks per device (interleaved, breadth-first)
};

/// One parameter a generator reads, with its range, default and help text.
struct ParamSpec {
    std::string_view name; ///< "pp", "microbatches", "chunks"
    std::string_view field; ///< project-file path: "parallel.pp", ...
    int min;
    int max;
    int defaultValue;
    std::string_view help;
};

struct GeneratorInfo {
    std::string_view name;    ///< registry name: "1f1b"
    std::string_view title;   ///< "1F1B (PipeDream-Flush)"
    std::string_view summary; ///< one sentence for lists and tooltips
    std::string_view constraints; ///< the rules, in words ("m % p == 0")
    std::span<const ParamSpec> params;
    bool splitBackward; ///< B/W split (zero-bubble family)
    int pipes;          ///< 2 for bidirectional schedules
    /// Stages of one pipe for these parameters (p, p*v, 2p ...).
    int (*stagesPerPipe)(const ScheduleParams&);
    /// Throws ValidationError naming the field, the value and the rule when the parameters do not
    /// suit this schedule. Called before `generate`.
    void (*check)(const ScheduleParams&);
    Schedule (*generate)(const ScheduleParams&);
};

/// Every registered generator, in the order the GUI and `list` show them.
std::span<const GeneratorInfo> generators();

/// Case-insensitive lookup; an unknown name throws ValidationError listing the valid names.
const GeneratorInfo& findGenerator(std::string_view name);

/// Check the common ranges and the generator's own constraints (throws ValidationError).
void checkParams(const GeneratorInfo& info, const ScheduleParams& params);

/// The message of the first rule `params` break for `info`, if any (for forms and sweeps).
std::optional<std::string> constraintViolation(const GeneratorInfo& info, const ScheduleParams& params);

/// Look up, check, generate. The result is not re-validated here (tests and the CLI do).
Schedule generateSchedule(std::string_view name, const ScheduleParams& params);

} // namespace stagecraft
