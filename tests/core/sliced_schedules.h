#pragma once
// Helpers of the sequence-sliced schedule tests (Seq1F1B, TeraPipe): their parameters, and an op
// named as the reference writes it, without its stage ("F3.1": kind, micro-batch, slice).

#include "generators/schedule_params.h"
#include "ir/op_name.h"
#include "ir/schedule.h"

#include <string>

namespace stagecraft::test {

inline ScheduleParams slicedParams(int p, int m, int k) {
    ScheduleParams params{p, m, 1};
    params.slices = k;
    return params;
}

inline std::string sliceOpText(const Schedule& s, const Op& op) {
    const std::string name = opName(op, s.splitBackward, s.sequenceSlices); // "2F3.1"
    return name.substr(name.find_first_not_of("0123456789"));
}

} // namespace stagecraft::test
