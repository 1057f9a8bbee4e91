// Chimera (Li & Hoefler, SC'21): two pipelines in opposite directions over the same p devices.
// Pipe 0 ("down") has stage s on device s, pipe 1 ("up") stage s on device p-1-s. Device r holds
// chunk 0 = down stage r and chunk 1 = up stage p-1-r; its chunk 0 is a replica of the layers of
// device p-1-r's chunk 1, and the two all-reduce their gradients (same stage index, two pipes).
//
// The order is the official generator's discrete-time grid (AutoGeneratePipelineRank): F and B
// take one step each; each pipe injects a micro-batch at its stage 0 every 2 steps; a micro-batch
// moves one stage per step, runs its B on the last stage the step after its last F, and walks
// back. A basic unit is p micro-batches, p/2 per pipe (unit u: down gets u*p + 0..p/2-1, up gets
// u*p + p/2..p-1). A pipe's next unit starts in the step its current unit's first micro-batch
// leaves the pipe (direct concatenation), i.e. every 2p steps. In closed form micro-batch i of unit
// u runs F of stage s in step 2pu + 2i + s and B of stage s in step 2pu + 2i + 2p-1-s.
//
// The public generator starts a new unit whenever any micro-batch finishes while others of its
// unit are still in flight. With 2 micro-batches per pipe and unit (p = 4) or m <= 2p that is one
// successor per unit, as here; with more it starts overlapping units that collide on devices and
// drops passes (p = 8, m = 24/32), and with p = 2 it never concatenates. Here every unit starts
// exactly one successor, for every m that is a multiple of p.
#include "generators/generators.h"

#include <deque>
#include <stdexcept>
#include <vector>

namespace stagecraft::gen {

void checkChimera(const ScheduleParams& params) {
    requireEvenPp("chimera", params);
    requireMicrobatchesMultipleOfPp("chimera", params);
}

namespace {

/// One step of a device's grid row: the op it runs then, or idle.
struct Cell {
    bool busy = false;
    OpKind kind = OpKind::F;
    int pipe = 0;
    int mb = 0;
};

int stageOnDevice(int p, int pipe, int device) {
    return pipe == 0 ? device : p - 1 - device;
}

std::vector<std::vector<StageSlot>> chimeraPlacement(int p) {
    std::vector<std::vector<StageSlot>> placement(2, std::vector<StageSlot>(std::size_t(p)));
    for (int s = 0; s < p; ++s) {
        placement[0][s] = {s, 0};
        placement[1][s] = {p - 1 - s, 1};
    }
    return placement;
}

/// Device d's row of the generator grid. Two ops never share a cell: on a device the F steps of
/// stage s have the parity of s and its B steps the other one, and the two stages d and p-1-d
/// have opposite parities (p even). So F of one stage could only meet B of the other, which
/// needs 2p(u-u') + 2(i-i') = +-p with |2(i-i')| <= p-2: impossible. The check stays as a guard.
std::vector<Cell> gridRow(int p, int m, int d) {
    std::vector<Cell> row(std::size_t(2 * m + p - 2));
    auto place = [&](int step, OpKind kind, int pipe, int mb) {
        Cell& cell = row.at(std::size_t(step));
        if (cell.busy) throw std::logic_error("chimera: two ops in one grid step of a device");
        cell = {true, kind, pipe, mb};
    };
    for (int unit = 0; unit < m / p; ++unit)
        for (int i = 0; i < p / 2; ++i)
            for (int pipe = 0; pipe < 2; ++pipe) {
                const int stage = stageOnDevice(p, pipe, d);
                const int inject = 2 * p * unit + 2 * i;
                const int mb = unit * p + pipe * (p / 2) + i;
                place(inject + stage, OpKind::F, pipe, mb);
                place(inject + 2 * p - 1 - stage, OpKind::B, pipe, mb);
            }
    return row;
}

/// Read a grid row into the device's order. Eager gradient sync (the grid's `s` slots): when the
/// last micro-batch of a pipe has run its B on this device, that stage replica's gradients are
/// final; the sync is queued and takes the device's next idle step, first come first served.
/// The public generator also queues a sync after every earlier unit (partial gradients); the IR
/// has one GradSync per replica, so only the final one is kept (identical orders when m == p).
void emitRow(Schedule& s, int d, const std::vector<Cell>& row) {
    const int p = s.devices, m = s.microbatches;
    auto lastMb = [&](int pipe) { return m - p + pipe * (p / 2) + p / 2 - 1; };
    auto sync = [&](int pipe) { pushOp(s, d, OpKind::GradSync, pipe, stageOnDevice(p, pipe, d), -1); };
    std::deque<int> pending; // pipes whose replica on d waits for an idle step to sync
    for (const Cell& cell : row) {
        if (cell.busy) {
            pushOp(s, d, cell.kind, cell.pipe, stageOnDevice(p, cell.pipe, d), cell.mb);
            if (cell.kind == OpKind::B && cell.mb == lastMb(cell.pipe)) pending.push_back(cell.pipe);
        } else if (!pending.empty()) {
            sync(pending.front());
            pending.pop_front();
        }
    }
    for (int pipe : pending) sync(pipe); // steps past the grid's end are idle
}

} // namespace

Schedule chimera(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule("chimera", p, m, chimeraPlacement(p), false);
    for (int d = 0; d < p; ++d) {
        reserveOrder(s, d, 2 * std::size_t(m) + 2);
        emitRow(s, d, gridRow(p, m, d));
    }
    return s;
}

} // namespace stagecraft::gen
