#include "bindings.h"

PYBIND11_MODULE(_stagecraft, m) {
    m.doc() = "Stagecraft's core: pipeline-parallel schedules, their validation, simulation and lowering.";
    namespace sp = stagecraft::python;
    sp::bindErrors(m);
    sp::bindSchedules(m);
    sp::bindProject(m);
    sp::bindSimulation(m);
    sp::bindLowering(m);
    sp::bindFidelity(m);
    sp::bindMeasured(m);
    sp::bindSearch(m);
    sp::bindEditing(m);
}
