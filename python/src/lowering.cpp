// lower(): the per-rank programs a runtime executes (compute, send/receive with peers and tags,
// gradient syncs, optimizer steps), either Stagecraft's own lowering (what stagecraft-run runs)
// or torch.distributed.pipelining's (`like="torch"`, byte for byte torch's comms CSV), with the
// replay that proves them deadlock-free.
#include "bindings.h"
#include "io/torch_comms_csv.h"
#include "passes/lower.h"
#include "passes/lower_torch.h"
#include "passes/replay.h"

#include <pybind11/stl.h>

namespace stagecraft::python {

void bindLowering(py::module_& m) {
    py::class_<Lowered>(m, "Lowered", "Per-rank programs of a schedule.")
        .def_readonly("name", &Lowered::name)
        .def_readonly("ranks", &Lowered::ranks)
        .def_readonly("peak_buffers", &Lowered::peakBuffers,
                      "[rank]: most activation buffers the rank holds at once")
        .def_property_readonly("instruction_count", &Lowered::instructionCount)
        .def(
            "program",
            [](const Lowered& l, int rank) {
                if (rank < 0 || rank >= l.ranks)
                    throw py::index_error("rank " + std::to_string(rank) + " of " + std::to_string(l.ranks));
                std::vector<std::string> out;
                for (const Instruction& in : l.programs[std::size_t(rank)].instructions)
                    out.push_back(describeInstruction(l, in));
                return out;
            },
            py::arg("rank"), "The rank's instructions in order, as `stagecraft-cli lower` prints them.")
        .def(
            "to_torch_comms_csv", [](const Lowered& l) { return programsToTorchCommsCsv(l); },
            "torch's compute + comms CSV (_PipelineScheduleRuntime's format with SEND/RECV actions).")
        .def(
            "check_deadlock_free",
            [](const Lowered& l, const std::string& semantics) {
                ReplayOptions options;
                if (semantics == "mpi") {
                    options.semantics = CommSemantics::Mpi;
                    options.groups = false;
                } else if (semantics != "nccl") {
                    throw py::value_error("semantics must be 'nccl' or 'mpi', not '" + semantics + "'");
                }
                py::gil_scoped_release release;
                requireDeadlockFree(l, options);
            },
            py::arg("semantics") = "nccl",
            "Replays the programs; raises Error 'lower.deadlock' naming the ring of waiting ranks.");

    m.def(
        "lower",
        [](const Schedule& s, const std::string& like) {
            if (like != "stagecraft" && like != "torch")
                throw py::value_error("like must be 'stagecraft' or 'torch', not '" + like + "'");
            py::gil_scoped_release release;
            return like == "torch" ? lowerLikeTorch(s) : lowerIteration(s);
        },
        py::arg("schedule"), py::arg("like") = "stagecraft",
        "Lowers a schedule to per-rank programs: 'stagecraft' as stagecraft-run runs one iteration "
        "(with the gradient syncs and optimizer steps the schedule lacks, as `stagecraft-cli lower`), "
        "'torch' as torch.distributed.pipelining's _PipelineScheduleRuntime would (torch adds its own "
        "gradient reduction).");
}

} // namespace stagecraft::python
