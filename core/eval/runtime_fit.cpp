#include "eval/runtime_fit.h"

#include "error.h"
#include "eval/held_payloads.h"
#include "eval/post_stalls.h"
#include "eval/shared_processors.h"
#include "generators/registry.h"
#include "io/executed_program.h"
#include "io/measured_trace.h"
#include "io/torch_trace.h"
#include "ir/stage_flow.h"
#include "number_text.h"
#include "passes/lower.h"
#include "passes/lower_torch.h"
#include "sim/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

namespace stagecraft {

namespace {

/// When the op of a compute range began: after the wait for its input.
double opStart(const ActionRange& r) {
    return std::min(r.end, r.start + std::max(0.0, r.wait));
}

bool isTransferRange(RangeKind k) {
    return k == RangeKind::SendF || k == RangeKind::RecvF || k == RangeKind::SendB || k == RangeKind::RecvB ||
           k == RangeKind::WaitSendF || k == RangeKind::WaitSendB;
}

using OpKey = std::tuple<int, int, int>; // range kind, stage, mb

/// µs of a receive's wait inside a compute range below which the data had arrived before the
/// wait began (the call itself takes a few µs): such a transfer's arrival is not observed.
constexpr double kWaited = 50;

/// Quantiles a fitted spread keeps of its samples.
constexpr std::size_t kSpreadQuantiles = 256;

/// Timings a prediction is the median of, at most. On the 4-rank torch runs one draw's makespan
/// is 11-16 % from the next (the ranks wait on each other's drawn ops), so the median of 33 draws
/// moved by 2-3 % with the seeds alone, the width of the acceptance itself; of 257, under 1 %.
constexpr int kReplications = 257;
/// Instruction timings one prediction takes at most. A longer iteration varies less from draw to
/// draw, as 1 / sqrt(instructions) (its ops' variations average out: 12.2, 6.0, 2.9 and 1.5 % at
/// 496, 1,888, 7,456 and 29,728 instructions of the 4-rank fit), so a fixed number of instruction
/// timings keeps the median's standard error fixed: under 1 % at every size with this budget.
constexpr std::size_t kDrawBudget = 1'000'000;
constexpr int kMinReplications = 3;

/// The path steps of one measured iteration (each rank's actions in its order): a compute range
/// waits for its received input (the later of the transfer's SEND and RECV ranges), a WAIT_SEND
/// for its send to complete (the later of that SEND and the peer's RECV).
std::vector<std::vector<ActionStep>>
measuredSteps(const std::vector<std::vector<const ActionRange*>>& actions) {
    std::map<OpKey, std::pair<int, std::size_t>> where; // (kind, stage, mb) -> (rank, step)
    for (std::size_t d = 0; d < actions.size(); ++d)
        for (std::size_t i = 0; i < actions[d].size(); ++i) {
            const ActionRange& r = *actions[d][i];
            where[{int(r.kind), r.stage, r.mb}] = {int(d), i};
        }
    auto step = [&](RangeKind kind, int stage, int mb) -> const std::pair<int, std::size_t>* {
        const auto it = where.find({int(kind), stage, mb});
        return it == where.end() ? nullptr : &it->second;
    };
    std::vector<std::vector<ActionStep>> steps(actions.size());
    for (std::size_t d = 0; d < actions.size(); ++d)
        for (const ActionRange* a : actions[d]) {
            const ActionRange& r = *a;
            ActionStep p;
            p.start = r.start;
            p.begin = r.start;
            p.end = r.end;
            const std::pair<int, std::size_t>*send = nullptr, *recv = nullptr;
            if (isComputeRange(r.kind)) {
                p.begin = opStart(r);
                if (r.kind != RangeKind::W) {
                    const bool forward = r.kind == RangeKind::F;
                    send = step(forward ? RangeKind::SendF : RangeKind::SendB,
                                transferPeerStage(forward ? OpKind::F : OpKind::B, false, r.stage), r.mb);
                    recv = step(forward ? RangeKind::RecvF : RangeKind::RecvB, r.stage, r.mb);
                }
            } else if (r.kind == RangeKind::WaitSendF || r.kind == RangeKind::WaitSendB) {
                p.part = ActionStep::Part::Comm;
                p.begin = r.end; // it blocks until its send completes
                const bool forward = r.kind == RangeKind::WaitSendF;
                send = step(forward ? RangeKind::SendF : RangeKind::SendB, r.stage, r.mb);
                recv = step(forward ? RangeKind::RecvF : RangeKind::RecvB,
                            transferPeerStage(forward ? OpKind::F : OpKind::B, true, r.stage), r.mb);
            } else {
                p.part = isTransferRange(r.kind) ? ActionStep::Part::Comm : ActionStep::Part::Bookkeeping;
            }
            if (send && recv) {
                const ActionRange& s = *actions[std::size_t(send->first)][send->second];
                const ActionRange& v = *actions[std::size_t(recv->first)][recv->second];
                const auto& later = s.end >= v.end ? *send : *recv;
                p.fromRank = later.first;
                p.fromStep = later.second;
            }
            steps[d].push_back(p);
        }
    return steps;
}

/// One iteration of a measured run.
RunSummary summarizeIteration(const std::vector<RankTrace>& ranks, int k) {
    RunSummary s;
    std::vector<std::vector<const ActionRange*>> actions;
    double t0 = INFINITY, t1 = -INFINITY;
    for (const RankTrace& t : ranks) {
        actions.push_back(iterationActions(t, k));
        if (!actions.back().empty()) t0 = std::min(t0, actions.back().front()->start);
        for (const ActionRange* r : actions.back()) t1 = std::max(t1, r->end);
    }
    if (!std::isfinite(t0)) return s;
    s.makespan = t1 - t0;
    double compute = 0;
    for (std::size_t d = 0; d < actions.size(); ++d) {
        RankTime time;
        double last = t0;
        for (const ActionRange* r : actions[d]) {
            last = std::max(last, r->end);
            if (isComputeRange(r->kind)) {
                time.compute += r->end - opStart(*r);
                time.inputWait += opStart(*r) - r->start;
                s.ops.push_back(
                    RunSummary::Op{r->kind, int(d), r->stage, r->mb, opStart(*r) - t0, r->end - t0});
            } else if (isTransferRange(r->kind)) {
                time.comm += r->end - r->start;
            } else {
                time.bookkeeping += r->end - r->start;
            }
        }
        time.gaps =
            std::max(0.0, (last - t0) - (time.compute + time.inputWait + time.comm + time.bookkeeping));
        compute += time.compute;
        s.ranks.push_back(time);
    }
    s.bubble = s.makespan > 0 ? 1.0 - compute / (double(ranks.size()) * s.makespan) : 0.0;
    s.path = actionCriticalPath(measuredSteps(actions), t0, kWaited);
    return s;
}

/// The makespan of each of `runs` (a run's iterations, or a prediction's draws).
std::vector<double> makespansOf(const std::vector<RunSummary>& runs) {
    std::vector<double> makespans;
    makespans.reserve(runs.size());
    for (const RunSummary& r : runs) makespans.push_back(r.makespan);
    return makespans;
}

/// `out`'s makespanP10 and makespanP90 from the makespans of its iterations (or draws); none for one.
void setMakespanPercentiles(RunSummary& out, const std::vector<double>& makespans) {
    if (makespans.size() < 2) return;
    out.makespanP10 = quantile(makespans, 0.1);
    out.makespanP90 = quantile(makespans, 0.9);
}

/// The median of each field over the iterations.
RunSummary medianOf(const std::vector<RunSummary>& runs) {
    RunSummary out;
    std::vector<double> v;
    auto med = [&](auto get) {
        v.clear();
        for (const RunSummary& r : runs) v.push_back(get(r));
        return median(v);
    };
    out.makespan = med([](const RunSummary& r) { return r.makespan; });
    std::vector<ActionPathParts> paths;
    paths.reserve(runs.size());
    for (const RunSummary& r : runs) paths.push_back(r.path);
    out.path = medianActionPath(paths);
    out.bubble = med([](const RunSummary& r) { return r.bubble; });
    const std::size_t rankCount = runs.front().ranks.size();
    for (std::size_t d = 0; d < rankCount; ++d) {
        RankTime t;
        t.compute = med([&](const RunSummary& r) { return r.ranks[d].compute; });
        t.inputWait = med([&](const RunSummary& r) { return r.ranks[d].inputWait; });
        t.comm = med([&](const RunSummary& r) { return r.ranks[d].comm; });
        t.bookkeeping = med([&](const RunSummary& r) { return r.ranks[d].bookkeeping; });
        t.gaps = med([&](const RunSummary& r) { return r.ranks[d].gaps; });
        out.ranks.push_back(t);
    }
    std::map<OpKey, std::pair<std::vector<double>, std::vector<double>>> ops;
    std::map<OpKey, int> rankOf;
    for (const RunSummary& r : runs)
        for (const RunSummary::Op& op : r.ops) {
            auto& [starts, ends] = ops[{int(op.kind), op.stage, op.mb}];
            starts.push_back(op.start);
            ends.push_back(op.end);
            rankOf[{int(op.kind), op.stage, op.mb}] = op.rank;
        }
    for (auto& [key, se] : ops) {
        const auto [kind, stage, mb] = key;
        const double start = median(se.first);
        out.ops.push_back(RunSummary::Op{RangeKind(kind), rankOf[key], stage, mb, start,
                                         std::max(start, median(se.second))});
    }
    return out;
}

RangeKind rangeKindOf(OpKind op, bool split) {
    return op == OpKind::F   ? RangeKind::F
           : op == OpKind::W ? RangeKind::W
           : split           ? RangeKind::I
                             : RangeKind::B;
}

/// What one iteration's transfers show, in wall time: every post as it ran (countPostStalls),
/// every send-first transfer by its sender's state (countHeldPayloads), and the time of every
/// transfer its consumer waited for, from the later post to its arrival.
struct TransferRecords {
    std::vector<PostRecord> posts;
    std::vector<SendFirstTransfer> sendFirst;
    std::vector<double> waited;
};

/// The samples of every primitive the model has, read off the ranks' ranges.
struct Samples {
    std::vector<std::array<std::vector<double>, 4>> compute; ///< [stage][F, B, I, W]
    std::vector<double> gaps, postRecv, postSend, waitSend, reduceGrad, unshard, reshard, transfer;
    TransferRecords transfers; ///< in wall time, for the stalled posts and held payloads
};

/// The typical value of a primitive over some iterations: its mean within each iteration (an
/// iteration's time is the sum of its ops, and their times are skewed: a median would under-count
/// the slow ones), and of those the median over the iterations (one iteration slowed by something
/// else must not move it). 0 where no iteration has a sample.
template <class Get>
double typicalOver(const std::vector<const Samples*>& iterations, Get get) {
    std::vector<double> means;
    for (const Samples* it : iterations)
        if (const std::vector<double>& v = get(*it); !v.empty()) means.push_back(mean(v));
    return median(means);
}

/// The typical costs of one recording's iterations, which the spread measures its samples against.
struct RecordingCosts {
    std::vector<std::array<double, 4>> compute; ///< [stage][F, B, I, W]
    double gap = 0, postRecv = 0, postSend = 0;
};

RecordingCosts recordingCosts(const std::vector<const Samples*>& iterations, int stages) {
    RecordingCosts c;
    c.compute.resize(std::size_t(stages));
    for (std::size_t stage = 0; stage < std::size_t(stages); ++stage)
        for (std::size_t kind = 0; kind < 4; ++kind)
            c.compute[stage][kind] =
                typicalOver(iterations, [&](const Samples& it) -> const std::vector<double>& {
                    return it.compute[stage][kind];
                });
    c.gap = typicalOver(iterations, [](const Samples& it) -> const std::vector<double>& { return it.gaps; });
    c.postRecv =
        typicalOver(iterations, [](const Samples& it) -> const std::vector<double>& { return it.postRecv; });
    c.postSend =
        typicalOver(iterations, [](const Samples& it) -> const std::vector<double>& { return it.postSend; });
    return c;
}

int computeSlot(RangeKind k) {
    return k == RangeKind::F ? 0 : k == RangeKind::B ? 1 : k == RangeKind::I ? 2 : 3;
}

/// The kind a compute range is fitted as. In a split run whose ranges never say I (the zero-bubble
/// runtime's and torch's older naming) a B is the input-gradient half; where I ranges exist, a B
/// is a whole backward (DualPipeV runs both).
RangeKind fittedKind(RangeKind kind, bool olderNaming) {
    return olderNaming && kind == RangeKind::B ? RangeKind::I : kind;
}

/// True when a split run names its input-gradient halves B (no range says I).
bool namesInputHalvesB(const std::vector<RankTrace>& ranks, bool split) {
    if (!split) return false;
    for (const RankTrace& t : ranks)
        for (const ActionRange& r : t.ranges)
            if (r.kind == RangeKind::I) return false;
    return true;
}

/// The samples of iteration k.
/// When each rank used a processor in iteration k: its compute (without the wait for its input),
/// its posts and bookkeeping actions and the framework's time between two actions; not WAIT_SEND
/// nor a receive wait, which block without computing.
std::vector<BusyIntervals> busyIntervals(const std::vector<RankTrace>& ranks, int k) {
    std::vector<BusyIntervals> busy(ranks.size());
    for (std::size_t d = 0; d < ranks.size(); ++d) {
        const std::vector<const ActionRange*> list = iterationActions(ranks[d], k);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const ActionRange& r = *list[i];
            if (i > 0 && r.start > list[i - 1]->end) busy[d].emplace_back(list[i - 1]->end, r.start);
            if (r.kind == RangeKind::WaitSendF || r.kind == RangeKind::WaitSendB) continue;
            busy[d].emplace_back(isComputeRange(r.kind) ? opStart(r) : r.start, r.end);
        }
    }
    return busy;
}

TransferRecords transferRecords(const std::vector<std::vector<const ActionRange*>>& actions) {
    TransferRecords out;
    // (kind, stage, mb) -> the range of this iteration, over all ranks (a stage has one rank).
    std::map<OpKey, const ActionRange*> byKey;
    std::map<int, int> rankOfStage;
    for (std::size_t d = 0; d < actions.size(); ++d)
        for (const ActionRange* r : actions[d]) {
            byKey[{int(r->kind), r->stage, r->mb}] = r;
            if (isComputeRange(r->kind)) rankOfStage.emplace(r->stage, int(d));
        }
    // Each rank's blocking waits (a compute range's wait for its input, WAIT_SEND) and its
    // compute, in order.
    std::vector<Intervals> blocked(actions.size()), computing(actions.size());
    for (std::size_t rank = 0; rank < actions.size(); ++rank)
        for (const ActionRange* r : actions[rank]) {
            if (r->kind == RangeKind::WaitSendF || r->kind == RangeKind::WaitSendB)
                blocked[rank].emplace_back(r->start, r->end);
            else if (isComputeRange(r->kind) && r->wait > kWaited)
                blocked[rank].emplace_back(r->start, opStart(*r));
            if (isComputeRange(r->kind)) computing[rank].emplace_back(opStart(*r), r->end);
        }
    for (std::size_t rank = 0; rank < actions.size(); ++rank)
        for (const ActionRange* a : actions[rank]) {
            const ActionRange& r = *a;
            if (r.kind == RangeKind::RecvF || r.kind == RangeKind::RecvB || r.kind == RangeKind::SendF ||
                r.kind == RangeKind::SendB) {
                const bool send = r.kind == RangeKind::SendF || r.kind == RangeKind::SendB;
                const bool forward = r.kind == RangeKind::SendF || r.kind == RangeKind::RecvF;
                const auto peer =
                    rankOfStage.find(transferPeerStage(forward ? OpKind::F : OpKind::B, send, r.stage));
                out.posts.push_back(PostRecord{int(rank), peer == rankOfStage.end() ? -1 : peer->second, send,
                                               r.start, r.end - r.start});
                continue;
            }
            if (!isComputeRange(r.kind) || r.kind == RangeKind::W) continue;
            const bool forward = r.kind == RangeKind::F;
            const int peerStage = transferPeerStage(forward ? OpKind::F : OpKind::B, false, r.stage);
            const auto send =
                byKey.find({int(forward ? RangeKind::SendF : RangeKind::SendB), peerStage, r.mb});
            const auto recv = byKey.find({int(forward ? RangeKind::RecvF : RangeKind::RecvB), r.stage, r.mb});
            if (send == byKey.end() || recv == byKey.end()) continue;
            const double sent = send->second->end, posted = recv->second->end;
            // Sent before its receive was posted, both before the consumer began: the payload was
            // left to the sender's I/O thread (eval/held_payloads.h).
            if (const auto sender = rankOfStage.find(peerStage);
                sent < posted && posted <= r.start && sender != rankOfStage.end()) {
                const auto d = std::size_t(sender->second);
                const SenderState state = within(blocked[d], r.start)     ? SenderState::Blocked
                                          : within(computing[d], r.start) ? SenderState::Computing
                                                                          : SenderState::Other;
                out.sendFirst.push_back(SendFirstTransfer{state, opStart(r) - r.start});
            }
            // A wait() that returned at once still ends inside the range: the data was there.
            if (r.wait > kWaited) out.waited.push_back(std::max(0.0, opStart(r) - std::max(sent, posted)));
        }
    return out;
}

std::vector<std::vector<const ActionRange*>> actionsOf(const std::vector<RankTrace>& ranks, int k) {
    std::vector<std::vector<const ActionRange*>> actions;
    actions.reserve(ranks.size());
    for (const RankTrace& t : ranks) actions.push_back(iterationActions(t, k));
    return actions;
}

/// The stalled posts and held payloads of some iterations' records, the held ones past
/// `transferUs`.
TransferContention contentionOf(const std::vector<const TransferRecords*>& iterations, double transferUs) {
    std::vector<std::vector<PostRecord>> posts;
    std::vector<std::vector<SendFirstTransfer>> sendFirst;
    for (const TransferRecords* it : iterations) {
        posts.push_back(it->posts);
        sendFirst.push_back(it->sendFirst);
    }
    return TransferContention{countPostStalls(posts), countHeldPayloads(sendFirst, transferUs)};
}

Samples collect(const std::vector<RankTrace>& ranks, int k, int stages, bool olderNaming,
                const SharedProcessorClock& clock) {
    Samples s;
    s.compute.resize(std::size_t(stages));
    const std::vector<std::vector<const ActionRange*>> actions = actionsOf(ranks, k);
    s.transfers = transferRecords(actions);
    s.transfer = s.transfers.waited;
    for (std::size_t rank = 0; rank < actions.size(); ++rank) {
        const auto& list = actions[rank];
        for (std::size_t i = 0; i < list.size(); ++i) {
            const ActionRange& r = *list[i];
            if (i > 0) s.gaps.push_back(clock.work(list[i - 1]->end, r.start));
            const double d = clock.work(r.start, r.end);
            switch (r.kind) {
            case RangeKind::F:
            case RangeKind::B:
            case RangeKind::I:
            case RangeKind::W: {
                const RangeKind kind = fittedKind(r.kind, olderNaming);
                if (r.stage >= 0 && r.stage < stages)
                    s.compute[std::size_t(r.stage)][std::size_t(computeSlot(kind))].push_back(
                        clock.work(opStart(r), r.end));
                break;
            }
            case RangeKind::RecvF:
            case RangeKind::RecvB:
                s.postRecv.push_back(d);
                break;
            case RangeKind::SendF:
            case RangeKind::SendB:
                s.postSend.push_back(d);
                break;
            case RangeKind::WaitSendF:
            case RangeKind::WaitSendB:
                s.waitSend.push_back(r.end - r.start);
                break;
            case RangeKind::ReduceGrad:
                s.reduceGrad.push_back(d);
                break;
            case RangeKind::Unshard:
                s.unshard.push_back(d);
                break;
            case RangeKind::Reshard:
                s.reshard.push_back(d);
                break;
            case RangeKind::Other:
            case RangeKind::R: // stagecraft-run's recompute: no primitive of torch's runtime
                break;
            }
        }
    }
    return s;
}

/// The correlation, over pairs of compute ops of different ranks that overlapped for more than
/// half of the first one's time, of their log durations relative to their stage and kind's cost;
/// clamped to [0, 0.95]. 0 without pairs.
double sharedVariation(const std::vector<RankTrace>& ranks, const std::vector<SharedProcessorClock>& clocks,
                       const std::vector<RecordingCosts>& costs, const std::vector<std::size_t>& recordingOf,
                       bool olderNaming) {
    const int iterations = int(clocks.size());
    struct Timed {
        double start, end, logRatio;
    };
    std::vector<double> xs, ys;
    for (int k = 0; k < iterations; ++k) {
        std::vector<std::vector<Timed>> ops(ranks.size());
        const auto& c = costs[recordingOf[std::size_t(k)]].compute;
        for (std::size_t d = 0; d < ranks.size(); ++d)
            for (const ActionRange* r : iterationActions(ranks[d], k)) {
                if (!isComputeRange(r->kind) || r->stage < 0 || std::size_t(r->stage) >= c.size()) continue;
                const double cost =
                    c[std::size_t(r->stage)][std::size_t(computeSlot(fittedKind(r->kind, olderNaming)))];
                const double d0 = clocks[std::size_t(k)].work(opStart(*r), r->end);
                if (cost > 0 && d0 > 0) ops[d].push_back(Timed{opStart(*r), r->end, std::log(d0 / cost)});
            }
        for (std::size_t a = 0; a < ops.size(); ++a)
            for (const Timed& x : ops[a]) {
                const Timed* best = nullptr;
                double most = 0.5 * (x.end - x.start);
                for (std::size_t b = 0; b < ops.size(); ++b) {
                    if (b == a) continue;
                    for (const Timed& y : ops[b]) {
                        const double overlap = std::min(x.end, y.end) - std::max(x.start, y.start);
                        if (overlap > most) {
                            most = overlap;
                            best = &y;
                        }
                    }
                }
                if (best) {
                    xs.push_back(x.logRatio);
                    ys.push_back(best->logRatio);
                }
            }
    }
    if (xs.size() < 8) return 0.0;
    const double mx = mean(xs), my = mean(ys);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        sxy += (xs[i] - mx) * (ys[i] - my);
        sxx += (xs[i] - mx) * (xs[i] - mx);
        syy += (ys[i] - my) * (ys[i] - my);
    }
    if (sxx <= 0 || syy <= 0) return 0.0;
    return std::clamp(sxy / std::sqrt(sxx * syy), 0.0, 0.95);
}

} // namespace

std::string repeatedRunOf(const std::filesystem::path& file) {
    const std::string name = file.filename().string();
    const std::size_t rank = name.rfind("_rank");
    const std::size_t rep = rank == std::string::npos ? std::string::npos : name.rfind("_rep", rank);
    if (rep == std::string::npos || rep + 4 == rank || !name.ends_with(".json")) return {};
    const auto digits = [](std::string_view s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(std::string_view(name).substr(rep + 4, rank - rep - 4)) ||
        !digits(std::string_view(name).substr(rank + 5, name.size() - 5 - rank - 5)))
        return {};
    return (file.parent_path() / name.substr(0, rep)).string();
}

std::vector<std::filesystem::path> runFiles(const std::string& spec) {
    std::vector<std::filesystem::path> files;
    std::size_t from = 0;
    while (from <= spec.size()) {
        const std::size_t comma = std::min(spec.find(',', from), spec.size());
        const std::string entry = spec.substr(from, comma - from);
        from = comma + 1;
        if (entry.empty()) continue;
        std::error_code ec;
        const auto rankFiles = [&](const std::string& prefix) {
            for (int r = 0;
                 std::filesystem::is_regular_file(prefix + "_rank" + std::to_string(r) + ".json", ec); ++r)
                files.emplace_back(prefix + "_rank" + std::to_string(r) + ".json");
        };
        const bool aFile = std::filesystem::is_regular_file(entry, ec);
        if (!aFile && std::filesystem::is_regular_file(entry + "_rank0.json", ec)) {
            rankFiles(entry);
        } else if (!aFile && std::filesystem::is_regular_file(entry + "_rep0_rank0.json", ec)) {
            // Repeated recordings of one run (RUN_rep0_rank0.json, RUN_rep1_rank0.json ...), each
            // its own processes: readTorchRun joins each rank's repeats into one trace.
            for (int k = 0;
                 std::filesystem::is_regular_file(entry + "_rep" + std::to_string(k) + "_rank0.json", ec);
                 ++k)
                rankFiles(entry + "_rep" + std::to_string(k));
        } else if (aFile) {
            files.emplace_back(entry);
        } else {
            // Neither a file nor a run's prefix: say both readings, or the sniffer would call the
            // missing file "not a torch trace".
            std::string message = "cannot read '";
            message += entry;
            message += std::filesystem::exists(entry, ec) ? "': not a file" : "': no such file";
            message += ", and no run with that prefix (";
            message += entry;
            message += "_rank0.json or ";
            message += entry;
            message += "_rep0_rank0.json)";
            throw Error("io.read", message);
        }
    }
    return files;
}

std::vector<RankTrace> readTorchRun(const std::vector<std::filesystem::path>& paths) {
    std::vector<RankTrace> ranks;
    for (const auto& path : paths) {
        const TraceFormat format = detectTraceFormat(path);
        if (format != TraceFormat::Torch)
            throw ParseError(
                "trace.container", path.string(), 0, 0,
                std::string("is ") +
                    (format == TraceFormat::Stagecraft
                         ? "not a torch profiler trace (a Stagecraft trace?); the runtime fit reads torch "
                           "profiler traces (stagecraft-cli calibrate fits a stagecraft-run trace, timed as "
                           "that runtime executes its programs, and overlay compares one)"
                         : "an Nsight Systems export; the runtime fit reads torch profiler traces "
                           "(stagecraft-cli overlay reads this one)"));
        for (RankTrace& t : readTorchTrace(path, TraceClock::Auto)) {
            // torch-gloo times what holds a rank's thread; on a GPU the host ranges only launch.
            if (t.clock == "gpu")
                throw ValidationError(
                    "calibrate.trace", "trace",
                    path.filename().string() +
                        ": the run's ops ran on a GPU (its ranges launched kernels the trace times on "
                        "the device); the runtime model (torch-gloo) is fitted to torch's CPU runs with "
                        "gloo, where an op holds the rank's thread for its whole time, and a GPU run's host "
                        "ranges time only the launches. `stagecraft-cli overlay` compares this run with a "
                        "prediction, and `calibrate` fits the list scheduler's costs to its kernel times");
            ranks.push_back(std::move(t));
        }
    }
    if (ranks.empty()) throw ParseError("trace.empty", "", 0, 0, "no trace file was given");
    const bool named =
        std::all_of(ranks.begin(), ranks.end(), [](const RankTrace& t) { return t.rank >= 0; });
    if (named) ranks = joinRepeatedRecordings(std::move(ranks)); // in rank order, one per rank
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        for (ActionRange& r : ranks[i].ranges)
            if (r.stage < 0 && r.chunk == 0)
                r.stage = int(i); // a single-stage class's own labels ("Forward 3"): the rank's stage
            else if (r.stage < 0)
                throw ParseError("trace.event", ranks[i].source, 0, 0,
                                 "event " + std::to_string(r.event) +
                                     " names a model chunk, not a stage; the runtime fit reads torch's "
                                     "PP:<stage><action> ranges");
    }
    // Every stage of the run must be in the files: one rank's file alone is a common slip.
    std::map<int, std::size_t> rankOfStage;
    for (std::size_t i = 0; i < ranks.size(); ++i)
        for (const ActionRange& r : ranks[i].ranges)
            if (isComputeRange(r.kind)) rankOfStage.emplace(r.stage, i);
    if (rankOfStage.empty()) refuseWithoutCompute(ranks);
    const int stages = rankOfStage.rbegin()->first + 1;
    if (int(rankOfStage.size()) != stages) {
        std::string missing;
        for (int s = 0; s < stages && missing.size() < 60; ++s)
            if (!rankOfStage.count(s)) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
        throw ParseError(
            "trace.shape", ranks.front().source, 0, 0,
            "the " + std::to_string(ranks.size()) +
                (ranks.size() == 1 ? " file given holds" : " files given hold") + " stages up to " +
                std::to_string(stages - 1) + " but none of stage " + missing +
                ": give the trace of every rank of the run (RUN_rank0.json, RUN_rank1.json ...)");
    }
    return ranks;
}

RunSummary summarizeMeasured(const std::vector<RankTrace>& ranks) {
    const int iterations = completeIterations(ranks);
    if (iterations <= 0)
        throw ParseError("trace.empty", ranks.empty() ? std::string() : ranks.front().source, 0, 0,
                         "the trace holds no complete iteration of pipeline compute actions");
    std::vector<RunSummary> runs;
    runs.reserve(std::size_t(iterations));
    for (int k = 0; k < iterations; ++k) runs.push_back(summarizeIteration(ranks, k));
    RunSummary out = medianOf(runs);
    const std::vector<double> makespans = makespansOf(runs);
    std::tie(out.makespanLow, out.makespanHigh) = medianInterval(makespans);
    setMakespanPercentiles(out, makespans);
    return out;
}

/// The path steps of a timing of `programs`: an instruction that awaited a transfer waits for the
/// later of its Send and Recv posts.
std::vector<std::vector<ActionStep>> predictedSteps(const Lowered& programs, const ProgramTiming& timing) {
    struct Posts {
        std::pair<int, std::size_t> send{-1, 0}, recv{-1, 0};
    };
    std::vector<Posts> posts; // by tag (the lowering numbers a program's transfers from 0)
    for (int r = 0; r < programs.ranks; ++r) {
        const auto& ins = programs.programs[std::size_t(r)].instructions;
        for (std::size_t i = 0; i < ins.size(); ++i) {
            if ((ins[i].kind != InstrKind::Send && ins[i].kind != InstrKind::Recv) || ins[i].tag < 0)
                continue;
            const auto tag = std::size_t(ins[i].tag);
            if (tag >= posts.size()) posts.resize(tag + 1);
            (ins[i].kind == InstrKind::Send ? posts[tag].send : posts[tag].recv) = {r, i};
        }
    }
    std::vector<std::vector<ActionStep>> steps(std::size_t(programs.ranks));
    for (int r = 0; r < programs.ranks; ++r) {
        const auto& ins = programs.programs[std::size_t(r)].instructions;
        const auto& times = timing.ranks[std::size_t(r)];
        steps[std::size_t(r)].reserve(ins.size());
        for (std::size_t i = 0; i < ins.size() && i < times.size(); ++i) {
            const Instruction& in = ins[i];
            const TimedInstruction& t = times[i];
            ActionStep p;
            p.start = t.start;
            p.begin = t.begin;
            p.end = t.end;
            const bool comm =
                in.kind == InstrKind::Send || in.kind == InstrKind::Recv ||
                (in.kind == InstrKind::Wait && (in.waits == InstrKind::Send || in.waits == InstrKind::Recv));
            p.part = in.kind == InstrKind::Compute ? ActionStep::Part::Compute
                     : comm                        ? ActionStep::Part::Comm
                                                   : ActionStep::Part::Bookkeeping;
            if (t.awaited >= 0 && std::size_t(t.awaited) < posts.size()) {
                const auto [send, recv] = posts[std::size_t(t.awaited)];
                if (send.first >= 0 && recv.first >= 0) {
                    const double sent = timing.ranks[std::size_t(send.first)][send.second].end;
                    const double received = timing.ranks[std::size_t(recv.first)][recv.second].end;
                    const auto& later = sent >= received ? send : recv;
                    p.fromRank = later.first;
                    p.fromStep = later.second;
                }
            }
            steps[std::size_t(r)].push_back(p);
        }
    }
    return steps;
}

RunSummary summarizePredicted(const Lowered& programs, const ProgramTiming& timing) {
    RunSummary s;
    double t0 = INFINITY, t1 = 0;
    for (const auto& rank : timing.ranks)
        if (!rank.empty()) {
            t0 = std::min(t0, rank.front().start);
            t1 = std::max(t1, rank.back().end);
        }
    if (!std::isfinite(t0)) return s;
    s.makespan = t1 - t0;
    double compute = 0;
    for (int r = 0; r < programs.ranks; ++r) {
        const auto& ins = programs.programs[std::size_t(r)].instructions;
        const auto& times = timing.ranks[std::size_t(r)];
        RankTime time;
        double last = t0;
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const Instruction& in = ins[i];
            const TimedInstruction& t = times[i];
            last = std::max(last, t.end);
            switch (in.kind) {
            case InstrKind::Compute:
                time.compute += t.end - t.begin;
                time.inputWait += t.begin - t.start;
                s.ops.push_back(RunSummary::Op{rangeKindOf(in.op, programs.splitBackward), r, in.stage, in.mb,
                                               t.begin - t0, t.end - t0});
                break;
            case InstrKind::Send:
            case InstrKind::Recv:
                time.comm += t.end - t.start;
                break;
            case InstrKind::Wait:
                (in.waits == InstrKind::Send || in.waits == InstrKind::Recv ? time.comm : time.bookkeeping) +=
                    t.end - t.start;
                break;
            case InstrKind::Optimizer:
                break;
            default:
                time.bookkeeping += t.end - t.start;
                break;
            }
        }
        time.gaps =
            std::max(0.0, (last - t0) - (time.compute + time.inputWait + time.comm + time.bookkeeping));
        compute += time.compute;
        s.ranks.push_back(time);
    }
    s.bubble = s.makespan > 0 ? 1.0 - compute / (double(programs.ranks) * s.makespan) : 0.0;
    s.path = actionCriticalPath(predictedSteps(programs, timing), t0, kWaited);
    return s;
}

FidelityReport compareRuns(const RunSummary& measured, const RunSummary& predicted) {
    FidelityReport f;
    f.measured = measured;
    f.predicted = predicted;
    f.makespanError =
        measured.makespan > 0 ? (predicted.makespan - measured.makespan) / measured.makespan : 0.0;
    f.bubbleError = predicted.bubble - measured.bubble;
    for (std::size_t d = 0; d < measured.ranks.size() && d < predicted.ranks.size(); ++d)
        if (measured.ranks[d].compute > 0)
            f.busyError =
                std::max(f.busyError, std::abs(predicted.ranks[d].compute / measured.ranks[d].compute - 1));
    if (measured.makespan > 0 && measured.makespanHigh > measured.makespanLow)
        f.measuredNoise = (measured.makespanHigh - measured.makespanLow) / 2 / measured.makespan;
    std::map<OpKey, const RunSummary::Op*> byKey;
    for (const RunSummary::Op& op : measured.ops) byKey[{int(op.kind), op.stage, op.mb}] = &op;
    // A whole backward of a split program (DualPipeV's) is its input half and its W, one after
    // the other; the trace has it as one B range. Where the measurement has such a B, the
    // prediction's I and W of it are compared as one op.
    std::vector<RunSummary::Op> ops = predicted.ops;
    {
        std::map<OpKey, std::size_t> at;
        for (std::size_t i = 0; i < ops.size(); ++i) at[{int(ops[i].kind), ops[i].stage, ops[i].mb}] = i;
        for (const RunSummary::Op& m : measured.ops) {
            if (m.kind != RangeKind::B || at.count({int(RangeKind::B), m.stage, m.mb})) continue;
            const auto in = at.find({int(RangeKind::I), m.stage, m.mb});
            const auto w = at.find({int(RangeKind::W), m.stage, m.mb});
            if (in == at.end() || w == at.end()) continue;
            RunSummary::Op& whole = ops[in->second];
            whole.kind = RangeKind::B;
            whole.end = std::max(whole.end, ops[w->second].end);
            ops[w->second].kind = RangeKind::Other; // folded into the whole backward
        }
    }
    double ape = 0, ae = 0, measuredWork = 0, predictedWork = 0;
    std::size_t durations = 0;
    for (const RunSummary::Op& p : ops) {
        const auto it = byKey.find({int(p.kind), p.stage, p.mb});
        if (it == byKey.end()) continue;
        const RunSummary::Op& m = *it->second;
        ++f.matchedOps;
        ae += std::abs(p.start - m.start);
        if (m.end - m.start > 0) {
            ape += std::abs((p.end - p.start) - (m.end - m.start)) / (m.end - m.start);
            ++durations;
        }
        measuredWork += m.end - m.start;
        predictedWork += p.end - p.start;
    }
    f.opMape = durations ? ape / double(durations) : 0.0;
    if (measuredWork > 0 && predictedWork > 0) f.opSpeed = measuredWork / predictedWork;
    f.startMae = f.matchedOps ? ae / double(f.matchedOps) : 0.0;
    // The rank whose measured time is longest ends the iteration.
    for (std::size_t d = 1; d < measured.ranks.size(); ++d)
        if (measured.ranks[d].total() > measured.ranks[std::size_t(f.criticalRank)].total())
            f.criticalRank = int(d);
    if (std::size_t(f.criticalRank) < measured.ranks.size() &&
        std::size_t(f.criticalRank) < predicted.ranks.size()) {
        const RankTime& m = measured.ranks[std::size_t(f.criticalRank)];
        const RankTime& p = predicted.ranks[std::size_t(f.criticalRank)];
        f.criticalDelta = RankTime{p.compute - m.compute, p.inputWait - m.inputWait, p.comm - m.comm,
                                   p.bookkeeping - m.bookkeeping, p.gaps - m.gaps};
        f.criticalPastRank = (predicted.makespan - p.total()) - (measured.makespan - m.total());
    }
    return f;
}

namespace {

/// The run's samples: each iteration's (with the clock of its ranks' shared processors) and all
/// of them together.
struct RunSamples {
    std::vector<Samples> iterations;
    std::vector<SharedProcessorClock> clocks;
    Samples all;
    std::vector<std::size_t> recordingOf; ///< [iteration]: the recording (repeat) it is of
    std::size_t recordings = 1;
};

/// Which recording each of the first `iterations` iterations is of, by where rank 0's iteration
/// begins among its recordings (RankTrace::recordingStarts); 0 for all of a run recorded once.
std::vector<std::size_t> recordingsOfIterations(const std::vector<RankTrace>& ranks, int iterations) {
    std::vector<std::size_t> out(std::size_t(iterations), 0);
    if (ranks.empty() || ranks.front().recordingStarts.size() < 2) return out;
    const std::vector<double>& starts = ranks.front().recordingStarts;
    for (int k = 0; k < iterations; ++k) {
        const std::vector<const ActionRange*> actions = iterationActions(ranks.front(), k);
        if (actions.empty()) continue;
        const auto after = std::upper_bound(starts.begin(), starts.end(), actions.front()->start);
        out[std::size_t(k)] = std::size_t(std::max<std::ptrdiff_t>(0, after - starts.begin() - 1));
    }
    return out;
}

/// Each recording's typical costs, indexed by RunSamples::recordingOf.
std::vector<RecordingCosts> costsByRecording(const RunSamples& run, int stages) {
    std::vector<std::vector<const Samples*>> members(run.recordings);
    for (std::size_t k = 0; k < run.iterations.size(); ++k)
        members[run.recordingOf[k]].push_back(&run.iterations[k]);
    std::vector<RecordingCosts> out;
    out.reserve(members.size());
    for (const auto& list : members) out.push_back(recordingCosts(list, stages));
    return out;
}

RunSamples collectRun(const RuntimeFit& fit, const std::vector<RankTrace>& ranks, bool olderNaming,
                      double cores) {
    const int stages = fit.programs.stagesPerPipe;
    RunSamples run;
    run.recordingOf = recordingsOfIterations(ranks, fit.iterations);
    for (const std::size_t r : run.recordingOf) run.recordings = std::max(run.recordings, r + 1);
    Samples& s = run.all;
    s.compute.resize(std::size_t(stages));
    for (int k = 0; k < fit.iterations; ++k) {
        run.clocks.emplace_back(busyIntervals(ranks, k), cores);
        run.iterations.push_back(collect(ranks, k, stages, olderNaming, run.clocks.back()));
        const Samples& it = run.iterations.back();
        for (int stage = 0; stage < stages; ++stage)
            for (std::size_t kind = 0; kind < 4; ++kind) {
                auto& to = s.compute[std::size_t(stage)][kind];
                const auto& from = it.compute[std::size_t(stage)][kind];
                to.insert(to.end(), from.begin(), from.end());
            }
        for (auto member : {&Samples::gaps, &Samples::postRecv, &Samples::postSend, &Samples::waitSend,
                            &Samples::reduceGrad, &Samples::unshard, &Samples::reshard, &Samples::transfer})
            (s.*member).insert((s.*member).end(), (it.*member).begin(), (it.*member).end());
    }
    return run;
}

/// The spread of `fit`'s costs: every sample as a multiple of its recording's typical cost, less
/// the variation the ranks share. Measured within each recording: repeats of a run recorded in new
/// processes run at speeds of their own, which the costs (typical over all of them) average, and
/// which pooled into the spread would read as every op's own variation.
void fitSpread(RuntimeFit& fit, const std::vector<RankTrace>& ranks, const RunSamples& run,
               bool olderNaming) {
    RuntimeCosts& c = fit.costs;
    const std::vector<RecordingCosts> typical = costsByRecording(run, fit.programs.stagesPerPipe);
    std::vector<double> compute, gap, post;
    auto relative = [](const std::vector<double>& samples, double cost, std::vector<double>& to) {
        if (cost > 0)
            for (const double v : samples) to.push_back(v / cost);
    };
    for (std::size_t k = 0; k < run.iterations.size(); ++k) {
        const Samples& s = run.iterations[k];
        const RecordingCosts& t = typical[run.recordingOf[k]];
        for (std::size_t stage = 0; stage < t.compute.size(); ++stage)
            for (std::size_t kind = 0; kind < 4; ++kind)
                relative(s.compute[stage][kind], t.compute[stage][kind], compute);
        relative(s.gaps, t.gap, gap);
        relative(s.postRecv, t.postRecv, post);
        relative(s.postSend, t.postSend, post);
    }
    // Only the ranks' own variation makes one wait for another: a slowdown of the whole machine
    // stretches every rank alike. The share the ranks have in common (the correlation of ops that
    // ran at the same time on different ranks) is taken out of the spread; the costs keep it.
    fit.sharedVariation = sharedVariation(ranks, run.clocks, typical, run.recordingOf, olderNaming);
    const double keep = std::sqrt(1.0 - fit.sharedVariation);
    for (auto* list : {&compute, &gap, &post})
        for (double& m : *list) m = 1.0 + keep * (m - 1.0);
    if (fit.sharedVariation > 0)
        fit.notes.push_back(std::to_string(int(std::lround(100 * fit.sharedVariation))) +
                            " % of the ops' variation is shared by the ranks (ops that ran at the same time "
                            "were slow together): the spread keeps the rest");
    if (run.recordings > 1)
        fit.notes.push_back("the run was recorded " + std::to_string(run.recordings) +
                            " times: the costs are typical of all recordings, the spread is each op's "
                            "variation within its recording");
    c.spread.compute = quantiles(compute, kSpreadQuantiles);
    c.spread.gap = quantiles(gap, kSpreadQuantiles);
    c.spread.post = quantiles(post, kSpreadQuantiles);
    // A transfer keeps its median time: its waited-for samples are the slow ones (a consumer that
    // did not wait shows no arrival), so their spread would over-state every transfer's delay.
}

/// Each rank's speed at weight gradients in a split run (RuntimeCosts::weightFactors): its W time
/// over its I time, summed over its stages whose I computes something (torch's first stage's I
/// computes nothing: its W is the whole backward). In every recorded torch run the ranks run
/// their I GEMMs at one speed and their W GEMMs at two (docs/fidelity.md), so the costs keep
/// which rank ran each stage, and a W placed elsewhere takes its new rank's speed.
void fitWeightFactors(RuntimeFit& fit) {
    RuntimeCosts& c = fit.costs;
    const Lowered& l = fit.programs;
    c.stageRanks.assign(c.stages.size(), -1);
    std::vector<double> w(std::size_t(l.ranks), 0.0), i(std::size_t(l.ranks), 0.0);
    for (std::size_t s = 0; s < c.stages.size() && s < l.placement.at(0).size(); ++s) {
        const int rank = l.placement[0][s].device;
        c.stageRanks[s] = rank;
        const StageCompute& sc = c.stages[s];
        // An I under a tenth of its W is torch's first stage (its I computes nothing).
        if (rank < 0 || rank >= l.ranks || sc.i <= 0 || sc.w <= 0 || sc.i < 0.1 * sc.w) continue;
        w[std::size_t(rank)] += sc.w;
        i[std::size_t(rank)] += sc.i;
    }
    c.weightFactors.assign(std::size_t(l.ranks), NAN);
    std::string text;
    for (int r = 0; r < l.ranks; ++r) {
        const double f = i[std::size_t(r)] > 0 ? w[std::size_t(r)] / i[std::size_t(r)] : NAN;
        c.weightFactors[std::size_t(r)] = f;
        char one[48];
        std::snprintf(one, sizeof one, "%s%.2f", r == 0 ? "" : ", ", f);
        text += std::isfinite(f) ? one : (r == 0 ? "?" : ", ?");
    }
    // DualPipeV's runs measure whole backwards too (the backward half of each OVERLAP_F_B).
    const bool wholeMeasured =
        std::all_of(c.stages.begin(), c.stages.end(), [](const StageCompute& sc) { return sc.b >= 0; });
    fit.notes.push_back("W over I by rank: " + text +
                        " (the same FLOPs): a W another schedule runs on another rank takes that rank's "
                        "speed; " +
                        (wholeMeasured ? std::string("whole backwards as the run measured them")
                                       : std::string("a whole backward (not measured) is I + W with the W at "
                                                     "the fastest rank's speed")));
}

/// Fills `fit`'s costs, spread, counts, notes and residual from the run, its ranks sharing `cores`
/// processors (0: one each).
void fitCosts(RuntimeFit& fit, const std::vector<RankTrace>& ranks, const std::string& source,
              const RunSummary& measured, double cores) {
    const int stages = fit.programs.stagesPerPipe;
    const bool split = fit.programs.splitBackward;
    const bool olderNaming = namesInputHalvesB(ranks, split);
    // Each primitive's cost is typical over all iterations (typicalOver; what the fit is checked
    // against is the median iteration).
    const RunSamples run = collectRun(fit, ranks, olderNaming, cores);
    const std::vector<Samples>& iterations = run.iterations;
    const Samples& s = run.all;
    std::vector<const Samples*> all;
    all.reserve(iterations.size());
    for (const Samples& it : iterations) all.push_back(&it);
    auto typical = [&](auto get) { return typicalOver(all, get); };
    auto typicalCompute = [&](int stage, int kind) {
        return typical([&](const Samples& it) -> const std::vector<double>& {
            return it.compute[std::size_t(stage)][std::size_t(kind)];
        });
    };
    auto typicalAction = [&](std::vector<double> Samples::*member) {
        return typical([&](const Samples& it) -> const std::vector<double>& { return it.*member; });
    };

    RuntimeCosts& c = fit.costs;
    c.cores = cores;
    c.stages.resize(std::size_t(stages));
    for (int stage = 0; stage < stages; ++stage) {
        const auto& d = s.compute[std::size_t(stage)];
        StageCompute& sc = c.stages[std::size_t(stage)];
        for (const auto& list : d) fit.computeSamples += list.size();
        if (d[0].empty() || (d[1].empty() && d[2].empty()))
            throw ValidationError(
                "calibrate.trace", "trace",
                source + ": stage " + std::to_string(stage) +
                    " has no measured F or no backward; the fit needs both for every stage");
        sc.f = typicalCompute(stage, 0);
        if (split) {
            sc.i = d[2].empty() ? -1.0 : typicalCompute(stage, 2);
            sc.w = d[3].empty() ? -1.0 : typicalCompute(stage, 3);
        }
        // A whole backward where the run has one (every stage of a run that does not split it;
        // DualPipeV's overlapped backwards in one that does).
        if (!d[1].empty()) sc.b = typicalCompute(stage, 1);
    }
    if (split) {
        fitWeightFactors(fit);
        c = wholeBackwardCosts(c);
    }
    ActionCosts& a = c.actions;
    a.gap = typicalAction(&Samples::gaps);
    a.postRecv = typicalAction(&Samples::postRecv);
    a.postSend = typicalAction(&Samples::postSend);
    a.waitSend = median(s.waitSend); // its busy part: a mean would add the waits the model times itself
    a.reduceGrad = typicalAction(&Samples::reduceGrad);
    a.unshard = typicalAction(&Samples::unshard);
    a.reshard = typicalAction(&Samples::reshard);
    fit.gapSamples = s.gaps.size();
    fit.transferSamples = s.transfer.size();
    c.transfer.latency = median(s.transfer);
    c.transfer.usPerByte = 0;
    fit.notes.push_back(
        "transfers have one size in this run, so the fit gives every transfer its measured time "
        "(latency) and no per-byte term");
    if (s.transfer.empty())
        fit.notes.push_back("no consumer waited for a transfer, so its time is not observable: taken as 0");
    if (!split)
        fit.notes.push_back(
            "the run does not split the backward: I and W are not measured (a split schedule "
            "needs --input-share: stage 0's I is 0 and its W the whole backward, as in torch)");

    fitSpread(fit, ranks, run, olderNaming);
    std::vector<const TransferRecords*> records;
    records.reserve(iterations.size());
    for (const Samples& it : iterations) records.push_back(&it.transfers);
    const TransferContention contention = contentionOf(records, c.transfer.latency);
    fit.postStalls = contention.postStalls;
    fit.heldPayloads = contention.heldPayloads;
    for (std::string note : {postStallNote(fit.postStalls), heldPayloadNote(fit.heldPayloads)})
        if (!note.empty()) fit.notes.push_back(std::move(note));
    fit.residual = compareRuns(measured, predictSummary(fit.programs, c));
}

} // namespace

TransferContention measureContention(const std::vector<RankTrace>& ranks) {
    const int iterations = completeIterations(ranks);
    std::vector<TransferRecords> records;
    records.reserve(std::size_t(std::max(iterations, 0)));
    std::vector<double> waited;
    for (int k = 0; k < iterations; ++k) {
        records.push_back(transferRecords(actionsOf(ranks, k)));
        waited.insert(waited.end(), records.back().waited.begin(), records.back().waited.end());
    }
    std::vector<const TransferRecords*> pointers;
    pointers.reserve(records.size());
    for (const TransferRecords& r : records) pointers.push_back(&r);
    return contentionOf(pointers, waited.empty() ? 0.0 : median(waited));
}

RuntimeFit fitRuntime(const std::vector<RankTrace>& ranks, const std::string& source, double processors) {
    RuntimeFit fit;
    fit.iterations = completeIterations(ranks);
    if (fit.iterations <= 0)
        throw ValidationError("calibrate.trace", "trace",
                              source + ": the trace holds no complete iteration of pipeline compute actions");
    if (!recordsTransfers(ranks))
        throw ValidationError(
            "calibrate.trace", "trace",
            source + ": the run records no SEND/RECV actions (ScheduleGPipe's and Schedule1F1B's "
                     "loops do not), so the posts and transfers cannot be fitted: fit on a run of "
                     "torch's runtime classes (Interleaved1F1B, LoopedBFS, the zero-bubble ones) and "
                     "check GPipe against it");
    for (const RankTrace& t : ranks)
        if (t.overlapsByRule > 0)
            throw ValidationError(
                "calibrate.trace", "trace",
                source +
                    ": the run overlaps a forward and a backward in one action "
                    "(DualPipeV's OVERLAP_F_B), and " +
                    std::to_string(t.overlapsByRule) +
                    " of them were divided into their halves by a rule (the trace records no "
                    "CPU ops that show where the backward began): record with CPU activity, or fit "
                    "on a run of another class and check DualPipeV against it");
    fit.programs = executedPrograms(ranks, 0, source);
    // How many processors the ranks shared is a property of the machine the trace does not name
    // (CPU ranks oversubscribed on a few cores, or one GPU each): the fit takes the count whose
    // replay comes closest to the run's makespan, bubble and every rank's busy time, measured
    // against the acceptance's 5 %, 3 points and 5 %, none shared first (a tie keeps one processor
    // per rank). Busy time counts: a shared count can meet the makespan by stretching every rank's
    // compute beyond what the run measured.
    const RunSummary measured = summarizeMeasured(ranks);
    std::vector<double> counts;
    if (processors >= 0) { // the user's: one count, no search
        if (processors > 0 && processors < 1)
            throw ValidationError("fit.processors", "processors",
                                  "processors = " + formatNumber(processors) +
                                      ": the ranks' processors are 0 (one each) or at least 1");
        counts.push_back(processors >= double(ranks.size()) ? 0 : processors);
    } else {
        for (const double cores :
             {0.0, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0})
            if (cores == 0 || cores < double(ranks.size())) counts.push_back(cores);
    }
    RuntimeFit best;
    for (const double cores : counts) {
        RuntimeFit candidate = fit;
        fitCosts(candidate, ranks, source, measured, cores);
        auto miss = [](const FidelityReport& r) {
            return std::max(
                {std::abs(r.makespanError) / 0.05, std::abs(r.bubbleError) / 0.03, r.busyError / 0.05});
        };
        if (cores == counts.front() || miss(candidate.residual) < miss(best.residual))
            best = std::move(candidate);
    }
    if (best.costs.cores > 0) {
        std::ostringstream note;
        note << "the " << ranks.size() << " ranks shared about " << best.costs.cores
             << (processors >= 0 ? " processors (as given)"
                                 : " processors (the count whose replay comes closest to the run's makespan, "
                                   "bubble and busy time per rank)")
             << ": while more ranks compute at once each runs slower, and the costs are each op's work on a "
                "processor of its own";
        best.notes.push_back(note.str());
    }
    return best;
}

namespace {

/// How far a draw's margin may be from the nearest one's and still be drawn (see below).
constexpr double kNearMedian = 0.2;

/// Of `runs` (draws of one set of programs, ops in the same order), the index of a timeline to draw
/// and to measure. First the draws nearest `center` (their median) in makespan and bubble, each against its
/// acceptance bound (5 % and 3 points): the median makespan's draw alone can be several points of
/// bubble off the median, which a chart's metrics would then show. Of those within kNearMedian of
/// the nearest (1 % of makespan, 0.6 points), the one whose op farthest from its own median
/// duration, or rank farthest from its median time posting or between actions, is nearest it
/// (|log ratio|): a draw can be near the median overall with one op or post drawn from the
/// spread's tail at 3-5 times its cost, which a chart for a paper would show as the prediction.
std::size_t representativeDraw(const std::vector<RunSummary>& runs, const RunSummary& center) {
    std::vector<double> distance(runs.size());
    double best = INFINITY;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        distance[k] =
            std::max(std::abs(runs[k].makespan - center.makespan) / std::max(1e-9, center.makespan) / 0.05,
                     std::abs(runs[k].bubble - center.bubble) / 0.03);
        best = std::min(best, distance[k]);
    }
    // Each op's median duration over the draws (the programs are the same: ops line up).
    const std::size_t ops = runs.front().ops.size();
    std::vector<double> typical(ops), durations(runs.size());
    for (std::size_t i = 0; i < ops; ++i) {
        for (std::size_t k = 0; k < runs.size(); ++k)
            durations[k] = i < runs[k].ops.size() ? runs[k].ops[i].end - runs[k].ops[i].start : 0.0;
        typical[i] = median(durations);
    }
    // And each rank's time posting and in the framework's gaps: a post drawn from the tail (a
    // stall of milliseconds) shows as both ranks idle at once.
    const std::size_t ranks = runs.front().ranks.size();
    std::vector<double> typicalComm(ranks), typicalGaps(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        for (std::size_t k = 0; k < runs.size(); ++k) durations[k] = runs[k].ranks.at(r).comm;
        typicalComm[r] = median(durations);
        for (std::size_t k = 0; k < runs.size(); ++k) durations[k] = runs[k].ranks.at(r).gaps;
        typicalGaps[r] = median(durations);
    }
    const auto logOff = [](double value, double typicalValue) {
        return value > 0 && typicalValue > 0 ? std::abs(std::log(value / typicalValue)) : 0.0;
    };
    std::size_t chosen = 0;
    double smoothest = INFINITY;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        if (distance[k] > best + kNearMedian || runs[k].ops.size() != ops) continue;
        double off = 0;
        for (std::size_t i = 0; i < ops; ++i)
            off = std::max(off, logOff(runs[k].ops[i].end - runs[k].ops[i].start, typical[i]));
        for (std::size_t r = 0; r < ranks; ++r)
            off = std::max({off, logOff(runs[k].ranks[r].comm, typicalComm[r]),
                            logOff(runs[k].ranks[r].gaps, typicalGaps[r])});
        if (off < smoothest) {
            smoothest = off;
            chosen = k;
        }
    }
    return chosen;
}

/// The replicated timings of `programs`: the median summary over seeds 1..replications and the
/// seed whose timing represents them (representativeDraw; 0: no spread, the one timing without a
/// seed).
struct Replicated {
    RunSummary summary;
    std::uint64_t representativeSeed = 0;
};

Replicated replicate(const Lowered& programs, const RuntimeCosts& costs, int replications,
                     const WorkControl* control = nullptr) {
    if (replications <= 0) replications = drawsFor(programs);
    const CostSpread& d = costs.spread;
    const bool spread = !d.compute.empty() || !d.gap.empty() || !d.post.empty() || !d.transfer.empty();
    if (!spread || replications <= 1) return {summarizePredicted(programs, timePrograms(programs, costs)), 0};
    std::vector<RunSummary> runs;
    for (int k = 1; k <= replications; ++k) {
        throwIfCancelled(control, "the runtime model's timing");
        if (control) control->report(double(k - 1) / replications);
        TimingOptions options;
        options.seed = std::uint64_t(k);
        runs.push_back(summarizePredicted(programs, timePrograms(programs, costs, options)));
    }
    Replicated out{medianOf(runs), 1};
    setMakespanPercentiles(out.summary, makespansOf(runs));
    out.representativeSeed = representativeDraw(runs, out.summary) + 1;
    return out;
}

ProgramTiming timingWithSeed(const Lowered& programs, const RuntimeCosts& costs, std::uint64_t seed) {
    TimingOptions options;
    options.seed = seed;
    return timePrograms(programs, costs, options);
}

} // namespace

int drawsFor(const Lowered& programs) {
    std::size_t instructions = 0;
    for (const Program& p : programs.programs) instructions += p.instructions.size();
    const std::size_t draws = kDrawBudget / std::max<std::size_t>(1, instructions);
    return int(std::clamp<std::size_t>(draws, kMinReplications, kReplications)) | 1;
}

RunSummary predictSummary(const Lowered& programs, const RuntimeCosts& costs, int replications) {
    return replicate(programs, costs, replications).summary;
}

namespace {

/// `costs` for the programs a run executed: mapped onto its stage count, a whole backward from
/// I + W where the fit split it.
RuntimeCosts costsForPrograms(const RuntimeCosts& costs, const Lowered& programs,
                              std::vector<std::string>* notes) {
    RuntimeCosts mapped = remapStages(costs, programs.stagesPerPipe);
    if (notes && programs.stagesPerPipe != int(costs.stages.size()))
        notes->push_back("stage costs mapped from " + std::to_string(costs.stages.size()) + " to " +
                         std::to_string(programs.stagesPerPipe) + " stages by their share of the model");
    if (!programs.splitBackward) mapped = wholeBackwardCosts(mapped);
    return mapped;
}

} // namespace

FidelityReport predictRun(const RuntimeCosts& costs, const std::vector<RankTrace>& ranks,
                          const std::string& source, std::vector<std::string>* notes) {
    const Lowered programs = programsOfRun(ranks, source);
    const RunSummary measured = summarizeMeasured(ranks);
    const RuntimeCosts mapped = costsForPrograms(costs, programs, notes);
    FidelityReport report = compareRuns(measured, predictSummary(programs, mapped));
    // The same programs at the run's own op speed: what of the error the schedule's timing makes.
    const FidelityReport atSpeed =
        compareRuns(measured, predictSummary(programs, scaledCompute(mapped, report.opSpeed)));
    report.atRunSpeed = true;
    report.makespanErrorAtRunSpeed = atSpeed.makespanError;
    report.bubbleErrorAtRunSpeed = atSpeed.bubbleError;
    return report;
}

ProgramTiming representativeTiming(const Lowered& programs, const RuntimeCosts& costs, int replications) {
    return timingWithSeed(programs, costs, replicate(programs, costs, replications).representativeSeed);
}

RunTimelines runTimelines(const RuntimeCosts& costs, const std::vector<RankTrace>& ranks,
                          const std::string& source) {
    const Lowered programs = programsOfRun(ranks, source);
    RunTimelines out;
    MeasuredRunOptions median;
    median.pick = IterationPick::Median;
    out.measured = assembleMeasuredRun(ranks, median);
    out.predicted = representativeTiming(programs, costsForPrograms(costs, programs, nullptr)).timeline;
    // Both from their first op: the prediction's programs start with the framework's gap.
    double first = INFINITY;
    for (const TimelineEvent& e : out.predicted.events)
        if (e.lane == Lane::Compute) first = std::min(first, e.start);
    if (std::isfinite(first))
        for (TimelineEvent& e : out.predicted.events) {
            e.start -= first;
            e.end -= first;
        }
    out.measured.shape.schedule = "measured";
    out.predicted.shape.schedule = "predicted";
    return out;
}

RuntimeFitRecord recordOf(const RuntimeFit& fit, const std::string& source) {
    RuntimeFitRecord r;
    r.costs = fit.costs;
    r.source = source;
    r.iterations = fit.iterations;
    r.ranks = fit.programs.ranks;
    r.microbatches = fit.programs.microbatches;
    r.notes = fit.notes;
    r.residualMakespanError = fit.residual.makespanError;
    r.residualBubbleError = fit.residual.bubbleError;
    r.residualParts = residualPartsOf(fit.residual);
    r.criticalPath = FitCriticalPath{fit.residual.measured.path, fit.residual.predicted.path};
    return r;
}

ResidualParts residualPartsOf(const FidelityReport& report) {
    ResidualParts p;
    if (report.measured.ranks.empty()) return p;
    const RankTime& d = report.criticalDelta;
    p.rank = report.criticalRank;
    p.compute = d.compute;
    p.inputWait = d.inputWait;
    p.comm = d.comm;
    p.bookkeeping = d.bookkeeping;
    p.gaps = d.gaps;
    p.pastRank = report.criticalPastRank;
    return p;
}

namespace {

/// The timing of `programs` (lowered from `schedule` without its GradSync and Optimizer ops) as a
/// timeline of `schedule` itself: each device's events in the schedule's order, a GradSync at the
/// runtime's reduction of that stage's gradients (REDUCE_GRAD) and an Optimizer, which torch's
/// step does not run, taking no time after the device's last event; then the transfers.
Timeline timelineOfSchedule(const Schedule& schedule, const Lowered& programs, const ProgramTiming& timing) {
    Timeline out;
    out.shape = shapeOf(schedule);
    out.shape.schedule = schedule.name;
    const std::size_t devices = std::size_t(schedule.devices);
    std::vector<std::vector<const TimelineEvent*>> compute(devices);
    for (const TimelineEvent& e : timing.timeline.events)
        if (e.comm == CommKind::None && std::size_t(e.device) < devices)
            compute[std::size_t(e.device)].push_back(&e);
    // [rank] -> (pipe, stage) -> when the runtime reduced that stage's gradients.
    std::vector<std::map<std::pair<int, int>, TimedInstruction>> syncs(devices);
    for (std::size_t r = 0; r < programs.programs.size() && r < devices; ++r)
        for (std::size_t k = 0; k < programs.programs[r].instructions.size(); ++k) {
            const Instruction& in = programs.programs[r].instructions[k];
            if (in.kind == InstrKind::GradSync) syncs[r][{int(in.pipe), in.stage}] = timing.ranks[r][k];
        }
    out.events.reserve(timing.timeline.events.size() + devices * 2);
    for (std::size_t d = 0; d < devices; ++d) {
        std::size_t next = 0;
        double last = 0;
        for (const Op& op : schedule.order[d]) {
            TimelineEvent e;
            e.op = op;
            e.device = std::int32_t(d);
            if (op.kind == OpKind::GradSync || op.kind == OpKind::Optimizer) {
                e.start = e.end = last;
                if (op.kind == OpKind::GradSync) {
                    e.lane = Lane::Comm;
                    e.comm = CommKind::Collective;
                    if (const auto it = syncs[d].find({int(op.pipe), op.stage}); it != syncs[d].end()) {
                        e.start = it->second.begin;
                        e.end = it->second.end;
                    }
                }
            } else {
                if (next >= compute[d].size())
                    throw std::logic_error("timelineOfSchedule: the programs of device " + std::to_string(d) +
                                           " have fewer compute ops than the schedule");
                e = *compute[d][next++];
            }
            last = std::max(last, e.end);
            out.events.push_back(e);
        }
    }
    for (const TimelineEvent& e : timing.timeline.events)
        if (e.comm != CommKind::None) out.events.push_back(e);
    return out;
}

} // namespace

ScheduleTiming timeScheduleLikeTorch(const RuntimeCosts& costs, const Schedule& schedule,
                                     std::string_view registryName, double inputShare,
                                     const WorkControl* control) {
    ScheduleTiming out;
    RuntimeCosts mapped = remapStages(costs, schedule.stagesPerPipe);
    if (schedule.stagesPerPipe != int(costs.stages.size()))
        out.notes.push_back("stage costs mapped from " + std::to_string(costs.stages.size()) + " to " +
                            std::to_string(schedule.stagesPerPipe) + " stages by their share of the model");
    if (schedule.splitBackward) {
        const bool measured = std::all_of(mapped.stages.begin(), mapped.stages.end(),
                                          [](const StageCompute& c) { return c.i >= 0 && c.w >= 0; });
        if (!measured) {
            mapped = splitBackwardCosts(mapped, inputShare);
            out.notes.push_back("I and W not measured: I = " + std::to_string(inputShare).substr(0, 4) +
                                " x B, stage 0's I = 0 and W = B (torch's first stage)");
        }
    } else {
        mapped = wholeBackwardCosts(mapped);
    }
    if (schedule.sequenceSlices > 1) {
        // Fitted per micro-batch; a slice computes its share (uniform slices).
        mapped = scaledCompute(mapped, schedule.sliceShare());
        out.notes.push_back(
            "each of the " + std::to_string(schedule.sequenceSlices) +
            " sequence slices of a micro-batch costs its share of the fitted costs; torch has no "
            "slices, so its runtime is timed running the slices as micro-batches");
    }
    // torch lowers a compute-only order and reduces each stage's gradients itself (REDUCE_GRAD);
    // its step has no optimizer.
    Schedule order = schedule;
    for (std::vector<Op>& ops : order.order)
        std::erase_if(
            ops, [](const Op& op) { return op.kind == OpKind::GradSync || op.kind == OpKind::Optimizer; });
    const TorchRuntime runtime = torchRuntimeOf(registryName);
    Lowered programs;
    const bool recomputes =
        std::any_of(order.order.begin(), order.order.end(), [](const std::vector<Op>& ops) {
            return std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::R; });
        });
    if (order.pipes > 1 || recomputes) {
        // torch runs one pipe and has no recompute action; two pipes (Chimera, BitPipe) and R ops
        // are timed as Stagecraft lowers them, with torch's costs for every action (an R at its
        // stage's F): what they would give on this machine.
        programs = lower(order);
        out.runtime = "stagecraft";
        out.notes.push_back(order.pipes > 1
                                ? "torch runs one pipe: " + std::to_string(order.pipes) +
                                      " pipes timed with Stagecraft's lowering at the fitted costs"
                                : "torch has no recompute action: R ops timed with Stagecraft's "
                                  "lowering at the fitted costs, each as its stage's F");
    } else {
        programs = lowerLikeTorch(order, runtime);
        out.runtime = torchRuntimeName(runtime);
    }
    const Replicated timed = replicate(programs, mapped, drawsFor(programs), control);
    out.summary = timed.summary;
    out.timeline =
        timelineOfSchedule(schedule, programs, timingWithSeed(programs, mapped, timed.representativeSeed));
    return out;
}

SchedulePrediction predictTorchSchedule(const RuntimeCosts& costs, const std::string& name,
                                        const ScheduleParams& params, double inputShare) {
    const GeneratorInfo& info = findGenerator(name);
    info.check(params);
    GenerateRequest request;
    request.params = params;
    if (info.usesCosts) request.stageCosts = plannedStageCosts(costs, info.stagesPerPipe(params), inputShare);
    const Schedule schedule = generateChecked(info, request);
    ScheduleTiming timed = timeScheduleLikeTorch(costs, schedule, name, inputShare);
    SchedulePrediction out;
    out.schedule = name;
    out.runtime = std::move(timed.runtime);
    out.summary = std::move(timed.summary);
    out.timeline = std::move(timed.timeline);
    out.timeline.shape.schedule = name;
    out.notes = std::move(timed.notes);
    return out;
}

std::vector<SchedulePrediction> predictTorchSchedules(const RuntimeCosts& costs,
                                                      const std::vector<std::string>& names,
                                                      const ScheduleParams& params, double inputShare) {
    std::vector<SchedulePrediction> out;
    for (const std::string& name : names) {
        try {
            out.push_back(predictTorchSchedule(costs, name, params, inputShare));
        } catch (const Error& e) {
            SchedulePrediction refused;
            refused.schedule = name;
            refused.refusal = e.what();
            out.push_back(refused);
        }
    }
    return out;
}

} // namespace stagecraft
