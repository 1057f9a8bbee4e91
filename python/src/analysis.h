#pragma once
// core's analyze() for the module's calls on one schedule: run without the GIL, a refusal raised
// as the ValidationError it is (its id, field and message).

#include "error.h"
#include "eval/evaluation.h"

#include <pybind11/pybind11.h>

namespace stagecraft::python {

inline AnalysisResult analyzeOrRaise(const AnalysisRequest& request) {
    AnalysisResult result;
    {
        pybind11::gil_scoped_release release;
        result = analyze(request);
    }
    if (!result.refusals.empty()) throwRefusal(result.refusals.front());
    return result;
}

} // namespace stagecraft::python
