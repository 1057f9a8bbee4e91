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
    std::vector<Stamp> stamps;           ///< [instruction]
    std::vector<MemoryChange> memory;    ///< in program order
    double iterationStart = 0;           ///< µs since the anchor when the iteration began
    std::uint64_t allocations = 0;       ///< DeviceLayer::allocate calls during the iteration (0)
    std::uint64_t residentSlotBytes = 0; ///< the slots' memory measured after it (DeviceLayer::residentBytes)
};

/// Where a rank stopped: thrown by Executor::run when the layer fails or a wait times out.
struct ExecutionFault : std::runtime_error {
    ExecutionFault(const std::string& what, int iteration, int position, std::string instruction,
                   RankIteration partial);
    int iteration;
    int position;            ///< index of the instruction it was stuck at (waited for) in the rank's program
    std::string instruction; ///< its label and peer: "PP:1RECV_F3 from rank 0"
    RankIteration partial;   ///< the stamps of what ran before it
};

struct ExecutorOptions {
    /// Instructions the host may issue ahead of the device's completion (0: unbounded). While it
    /// waits it polls the deadline, the layer's asynchronous error and the stop flag, so a stuck
    /// peer is reported at the instruction that waits for it.
    int runAhead = 32;
    /// Post every receive as early as its buffer allows and every send as soon as its tensor is
    /// computed (the host backend: MPI never blocks on a post and moves the data while the rank
    /// computes or sleeps). Off: each at its place in the program, in its group (NCCL).
    bool earlyPosts = false;
};

class Executor {
  public:
    Executor(const RunPlan& plan, const RankPlan& rankPlan, DeviceLayer& layer, ExecutorOptions options = {});
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// Every buffer of the run, once: weights and gradients of every stage this rank holds, the
    /// lowering's activation slots and the gradient send buffers. No iteration allocates.
    void allocateStatic();
    std::int64_t staticBytes() const { return m_staticBytes; }
    /// Bytes of the slots the lowering planned (RankPlan::slots of RankPlan::slotElements).
    std::uint64_t plannedSlotBytes() const;

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
    /// Takes the step's slot for its micro-batch: waits (blocking) or checks (not blocking) that the
    /// transfers posted on it before have completed. False when not blocking and one has not.
    bool takeSlot(const Step& step, Clock::time_point deadline, bool block);
    /// Posts the receives whose buffers are free before instruction `index`, from each peer in
    /// program order (MPI matches them in that order); through `index` itself when it is a receive
    /// (blocking on a slot then). The order is core's (postDueReceives).
    void postReceives(std::size_t index, Clock::time_point deadline);
    void postReceive(std::size_t index);
    /// Posts, in program order, the sends whose tensors are computed before instruction `index`.
    void postSends(std::size_t index);
    void postSend(std::size_t index);
    /// Waits until the device finished every instruction before `end` (the run-ahead window).
    void awaitDevice(std::size_t end, Clock::time_point deadline);
    /// Waits for instruction `index`'s request to complete.
    void awaitRequest(std::size_t index, Clock::time_point deadline);
    void checkHealth(std::size_t waitingFor, Clock::time_point deadline);
    std::string describe(std::size_t index) const;
    /// Bytes of the activation buffer (of the micro-batch or slice) a step takes or gives back.
    std::int64_t activationBytes(const Step& s) const;
    /// Bytes of the key-value buffer of a sliced micro-batch a step takes or gives back.
    std::int64_t keyValueBytes(const Step& s) const;

    const RunPlan& m_plan;
    const RankPlan& m_rank;
    DeviceLayer& m_layer;
    ExecutorOptions m_options;
    Workload m_workload;
    bool m_splitBackward;

    /// The work of one micro-batch, or of one sequence slice of it, on a stage.
    struct SliceWork {
        std::uint64_t activationElements = 0;
        ActivationLayout layout;
        std::vector<Gemm> forward, backward, weightGrad; ///< on the template buffer ids (executor.cpp)
    };
    struct StageState {
        Buffer weights = -1;
        Buffer grads = -1;
        std::vector<SliceWork> slices; ///< one per sequence slice (model workload); one otherwise
        Axpy optimizer;
        /// The work of an instruction on slice unit `mb`.
        const SliceWork& of(int mb) const {
            return slices.size() == 1 || mb < 0 ? slices.front() : slices[std::size_t(mb) % slices.size()];
        }
    };
    const SliceWork& workOf(const Step& s) const { return m_stages[std::size_t(s.shape)].of(s.instr.mb); }
    std::vector<StageState> m_stages;
    std::vector<Buffer> m_slots;           ///< [slot]: allocated once
    std::vector<std::int32_t> m_slotOwner; ///< [slot]: the key holding it this iteration, -1 none
    std::vector<std::vector<std::int32_t>> m_slotUsers; ///< [slot]: instructions that posted transfers on it
    std::vector<Buffer> m_gradients;                    ///< gradient send buffers, used in turn
    std::vector<Buffer> m_keysValues; ///< sliced micro-batches' key-value buffers (RankPlan::keyValueBuffers)
    std::vector<std::int32_t> m_gradientUser; ///< [gradient buffer]: its SEND_B instruction, -1 none
    std::vector<std::int32_t> m_gradientOf;   ///< [instruction of a B]: the gradient buffer it wrote
    std::size_t m_nextGradient = 0;
    std::vector<Request> m_requests; ///< [instruction]: this iteration's request, -1 none
    PostQueues m_sends, m_receives;  ///< the plan's, with how many of each are posted
    std::size_t m_deviceDone = 0;    ///< every instruction before it has finished on the device
    std::int32_t m_stuck = -1;       ///< the instruction being waited for, -1 none
    RankIteration m_current;
    ComputeWork m_work;                      ///< reused: no allocation per op once warm
    std::vector<std::int32_t> m_nextCompute; ///< [instruction]: the next compute after it, -1 none
    std::int64_t m_staticBytes = 0;
    std::int32_t m_openGroup = -1;
    int m_iteration = 0;
    bool m_faultArmed = false;
    int m_faultIteration = 0;
    std::size_t m_faultPosition = 0;
    bool m_faultHang = false;
};

} // namespace stagecraft::runtime
