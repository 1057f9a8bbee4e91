#pragma once
// One executor for both backends: runs a rank's lowered program literally, iteration after
// iteration, on a DeviceLayer. It owns what the schedule decides (order, groups, which receive a
// compute needs, when an activation buffer is taken and given back, the watchdog's deadlines)
// and records what the layer measured (a start and end per instruction, the memory held).

#include "exec/device_layer.h"
#include "plan/run_plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft::runtime {

/// Memory taken (bytes > 0) at the start of an instruction or given back (bytes < 0) at its end.
struct MemoryChange {
    std::int32_t instr = 0;
    std::int64_t bytes = 0;
};

/// What one rank measured in one iteration.
struct RankIteration {
    std::vector<Stamp> stamps;        ///< [instruction]
    std::vector<MemoryChange> memory; ///< in program order
    double iterationStart = 0;        ///< µs since the anchor when the iteration began
};

/// Where a rank stopped: thrown by Executor::run when the layer fails or a wait times out.
struct ExecutionFault : std::runtime_error {
    ExecutionFault(const std::string& what, int iteration, int position, std::string instruction,
                   RankIteration partial);
    int iteration;
    int position;            ///< index of the instruction in the rank's program
    std::string instruction; ///< its label and description
    RankIteration partial;   ///< the stamps of what ran before it
};

class Executor {
  public:
    Executor(const RunPlan& plan, const RankPlan& rankPlan, DeviceLayer& layer);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// Weights and gradients of every stage this rank holds (held for the whole run).
    void allocateStatic();
    std::int64_t staticBytes() const { return m_staticBytes; }

    /// Runs the program once. Every wait gives up after `timeout` (the watchdog): the
    /// ExecutionFault then names the instruction and its position.
    RankIteration run(int iteration, Clock::duration timeout);

    /// For testing the fault path: when run(`iteration`) reaches instruction `position` the
    /// process kills itself (SIGKILL) or, with `hang`, stops forever.
    void injectFault(int iteration, int position, bool hang);

  private:
    void step(std::size_t index, Clock::time_point deadline);
    void compute(const Step& step, std::size_t index);
    Transfer transfer(const Step& step, std::size_t index) const;
    Operand tensorOf(const Step& step) const;

    const RunPlan& m_plan;
    const RankPlan& m_rank;
    DeviceLayer& m_layer;
    Workload m_workload;
    bool m_splitBackward;

    struct StageState {
        Buffer weights = -1;
        Buffer grads = -1;
        std::uint64_t activationElements = 0;
        ActivationLayout layout;
        std::vector<Gemm> forward, backward, weightGrad; ///< buffers as placeholders 0/1/2
        Axpy optimizer;
    };
    std::vector<StageState> m_stages;
    std::vector<Buffer> m_live;      ///< [key]: the activation buffer held, -1 none
    std::vector<Request> m_requests; ///< [instruction]: this iteration's request, -1 none
    RankIteration m_current;
    ComputeWork m_work; ///< reused: no allocation per op once warm
    std::int64_t m_staticBytes = 0;
    std::int32_t m_openGroup = -1;
    int m_iteration = 0;
    bool m_faultArmed = false;
    int m_faultIteration = 0;
    std::size_t m_faultPosition = 0;
    bool m_faultHang = false;
};

} // namespace stagecraft::runtime
