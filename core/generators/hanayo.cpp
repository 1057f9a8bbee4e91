// Hanayo (Liu et al., SC'23), a wave-like pipeline over S = 2 W p stages without Chimera's model
// copies. The paper's own figures could not be read; this is the order of the one public
// implementation found (Inria's elf scheduler, `generate_hanayo_schedule`), with its placement:
// stages zig-zag over the devices, stage i on device i mod p on the way down (i div p even) and on
// device p-1 - (i mod p) on the way back up, so device r holds 2W chunks and each wave is a V.
//
// Device r's stages in ascending order are ids[0..2W-1]: even positions are down-going stages,
// odd positions up-going ones. The order: min(p - r, m) warm-up forwards of ids[0]; then for each
// wave and micro-batch the forward of the next up-going stage, each followed by one more
// down-going forward while any is left, otherwise by the next backward of an up-going stage; then
// the backwards of the down-going stages, each followed by a remaining up-going backward.
// Backwards are whole (elf runs W right after B). The reference notes (schedules-next.md §3) hold
// the worked golden; the order keeps GPipe-like memory on the last device (2W m chunk
// activations), which is not the paper's claim, so the schedule's notes say so.
#include "error.h"
#include "generators/generators.h"

#include <algorithm>
#include <string>

namespace stagecraft::gen {

void checkHanayo(const ScheduleParams& params) {
    if (params.chunks % 2 != 0)
        throw ValidationError("generator.constraint", "parallel.chunks",
                              "parallel.chunks = " + std::to_string(params.chunks) +
                                  ": hanayo places 2 chunks per wave on each device and needs an even "
                                  "chunks (waves = chunks / 2)");
}

namespace {

int hanayoDevice(int p, int stage) {
    const int column = stage % p;
    return (stage / p) % 2 == 0 ? column : p - 1 - column;
}

} // namespace

Schedule hanayo(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, chunks = params.chunks, waves = chunks / 2;
    const int stages = p * chunks;
    std::vector<StageSlot> placement(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) placement[std::size_t(s)] = {hanayoDevice(p, s), s / p};
    Schedule sched = makeSchedule("hanayo", p, m, {placement}, false);
    sched.notes = "Hanayo in the order of the public third-party implementation (elf); the paper's "
                  "figures could not be checked, and this order holds 2W m chunk activations on the "
                  "last device, not the paper's memory claim";
    for (int r = 0; r < p; ++r) {
        std::vector<int> ids;
        for (int s = 0; s < stages; ++s)
            if (hanayoDevice(p, s) == r) ids.push_back(s);
        auto F = [&](int stage, int mb) { pushOp(sched, r, OpKind::F, 0, stage, mb); };
        auto B = [&](int stage, int mb) { pushOp(sched, r, OpKind::B, 0, stage, mb); };
        const int perLeg = m * waves; // down-going forwards (and up-going backwards) of the device
        int d = std::min(p - r, m);   // down-going forwards issued
        int e = 0;                    // up-going backwards issued
        for (int j = 0; j < d; ++j) F(ids[0], j);
        auto nextUpBackward = [&] {
            B(ids[std::size_t(chunks - 1) - 2 * std::size_t(e / m)], e % m);
            ++e;
        };
        for (int w = 0; w < waves; ++w)
            for (int j = 0; j < m; ++j) {
                F(ids[2 * std::size_t(w) + 1], j);
                if (d < perLeg) {
                    F(ids[2 * std::size_t(d / m)], d % m);
                    ++d;
                } else {
                    nextUpBackward();
                }
            }
        for (int w = 0; w < waves; ++w)
            for (int j = 0; j < m; ++j) {
                B(ids[std::size_t(chunks - 2) - 2 * std::size_t(w)], j);
                if (e < perLeg) nextUpBackward();
            }
    }
    return sched;
}

} // namespace stagecraft::gen
