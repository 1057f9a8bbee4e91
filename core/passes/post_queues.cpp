#include "passes/post_queues.h"

#include <algorithm>

namespace stagecraft {

PostQueues postQueues(const std::vector<Instruction>& program, InstrKind kind) {
    PostQueues out;
    for (std::size_t i = 0; i < program.size(); ++i) {
        const Instruction& in = program[i];
        if (in.kind != kind) continue;
        auto it = std::lower_bound(out.peers.begin(), out.peers.end(), in.peer,
                                   [](const PeerQueue& q, int peer) { return q.peer < peer; });
        if (it == out.peers.end() || it->peer != in.peer)
            it = out.peers.insert(it, PeerQueue{in.peer, {}, 0});
        it->instructions.push_back(std::int32_t(i));
    }
    return out;
}

} // namespace stagecraft
