#pragma once
// The request a generator is asked with for a project: the schedule parameters and, for
// generators whose order depends on them (GeneratorInfo::usesCosts), the per-stage F/B/W costs,
// the transfer time and the activation-memory limit, all from the project's cost and memory
// models, so a cost-aware generator plans with the same numbers the simulator then uses.

#include "generators/registry.h"
#include "project/project.h"

namespace stagecraft {

/// Parameters only for generators that do not use costs (nothing else is computed). For the
/// others: stage costs of one pipe in the project's cost mode (µs, or units), the intra-node
/// transfer time, and the memory limit in full-stage activations, M_a: the smallest over the devices
/// of (memory.limit_gib minus the device's static memory) over the largest full-stage activation of
/// a stage it holds, so the limit holds on every device (0 when there is no limit or in unit mode),
/// or memory.limit_microbatches as given when it is set (it takes precedence); keptForW is the
/// largest M_W / M_B of a stage (1 in unit mode). Throws ValidationError for a project the cost model cannot
/// use, and "generator.memory" (field memory.limit_gib) when static memory alone exceeds the limit.
GenerateRequest generateRequest(const Project& project, const GeneratorInfo& info);

} // namespace stagecraft
