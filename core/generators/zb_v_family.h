#pragma once
// zb-v for given costs: see zb_v_family.cpp and docs/zero-bubble.md.

#include "generators/registry.h"

namespace stagecraft::gen {

/// zb-v: the handcrafted order under equal F/B/W costs and no transfer time, else the searched
/// order within ZB-V's activation memory p·M_B, never slower (span or makespan) than the handcrafted.
Schedule zbVForCosts(const GenerateRequest& request);

} // namespace stagecraft::gen
