#include "io/torch_comms_csv.h"

#include "error.h"
#include "io/csv_rows.h"
#include "io/torch_csv.h"
#include "ir/action.h"
#include "ir/op_name.h"
#include "size_limits.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace stagecraft {

namespace {

/// The action types of a compute+comms cell, beside the compute ones.
enum class CommType : std::uint8_t { SendF, RecvF, SendB, RecvB, ReduceGrad, Unshard, Reshard };

struct TypeName {
    std::string_view name;
    CommType type;
    bool wait;
    bool hasMb;
};

constexpr std::array kTypes{
    TypeName{"SEND_F", CommType::SendF, false, true},
    TypeName{"RECV_F", CommType::RecvF, false, true},
    TypeName{"SEND_B", CommType::SendB, false, true},
    TypeName{"RECV_B", CommType::RecvB, false, true},
    TypeName{"REDUCE_GRAD", CommType::ReduceGrad, false, false},
    TypeName{"UNSHARD", CommType::Unshard, false, false},
    TypeName{"RESHARD", CommType::Reshard, false, false},
    TypeName{"WAIT_SEND_F", CommType::SendF, true, true},
    TypeName{"WAIT_RECV_F", CommType::RecvF, true, true},
    TypeName{"WAIT_SEND_B", CommType::SendB, true, true},
    TypeName{"WAIT_RECV_B", CommType::RecvB, true, true},
    TypeName{"WAIT_REDUCE_GRAD", CommType::ReduceGrad, true, false},
    TypeName{"WAIT_UNSHARD", CommType::Unshard, true, false},
};

using csv::trimBlanks;

std::string quote(std::string_view text) {
    return "'" + std::string(text) + "'";
}

InstrKind transferKind(CommType type) {
    return type == CommType::SendF || type == CommType::SendB ? InstrKind::Send : InstrKind::Recv;
}

Direction transferDir(CommType type) {
    return type == CommType::SendF || type == CommType::RecvF ? Direction::F : Direction::B;
}

bool isTransferType(CommType type) {
    return type == CommType::SendF || type == CommType::RecvF || type == CommType::SendB ||
           type == CommType::RecvB;
}

/// A comm cell: "2SEND_F3", "1REDUCE_GRAD", "2WAIT_SEND_F3".
struct CommCell {
    int stage;
    int mb;
    CommType type;
    bool wait;
};

/// The name torch gives the action of a comm instruction ("SEND_F", "REDUCE_GRAD").
std::string_view typeName(CommType type) {
    for (const TypeName& t : kTypes)
        if (t.type == type && !t.wait) return t.name;
    return "?";
}

/// One cell split into the leading stage digits, the type letters and the trailing digits.
struct CellParts {
    std::string_view stage, type, mb, rest;
};

CellParts split(std::string_view cell) {
    CellParts parts;
    std::size_t pos = 0;
    while (pos < cell.size() && cell[pos] >= '0' && cell[pos] <= '9') ++pos;
    parts.stage = cell.substr(0, pos);
    const std::size_t typeStart = pos;
    while (pos < cell.size() && ((cell[pos] >= 'A' && cell[pos] <= 'Z') || cell[pos] == '_')) ++pos;
    parts.type = cell.substr(typeStart, pos - typeStart);
    const std::size_t mbStart = pos;
    while (pos < cell.size() && cell[pos] >= '0' && cell[pos] <= '9') ++pos;
    parts.mb = cell.substr(mbStart, pos - mbStart);
    parts.rest = cell.substr(pos);
    return parts;
}

std::optional<int> number(std::string_view digits) {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return value;
}

class CommsReader {
  public:
    CommsReader(const std::string& source, const TorchCommsCsvOptions& options)
        : m_source(source), m_options(options) {}

    Lowered read(std::string_view text) {
        splitCells(text);
        const Schedule schedule = readCompute();
        return build(schedule);
    }

  private:
    [[noreturn]] void fail(const char* id, int row, int col, const std::string& message) const {
        throw ParseError(id, m_source, row + 1, col, message);
    }

    void splitCells(std::string_view text) {
        text = csv::body(text);
        if (text.empty())
            fail("csv.empty", -1, 0,
                 "the file has no action: a compute+comms CSV has one row of actions per rank");
        csv::forEachRow(text, [&](int row, std::string_view line) {
            if (row >= kMaxDevices)
                fail("csv.size", row, 0,
                     "more than " + std::to_string(kMaxDevices) + " rows: a row is a rank and the limit is " +
                         std::to_string(kMaxDevices) + " ranks");
            std::vector<std::string_view> cells;
            csv::forEachCell(line, [&](int, std::string_view cell) { cells.push_back(cell); });
            m_cellCount += cells.size();
            if (m_cellCount > kMaxOps)
                fail("csv.size", row, 0, "more than " + std::to_string(kMaxOps) + " cells");
            m_rows.push_back(std::move(cells));
        });
    }

    /// The comm action of a cell, or nullopt for a compute (or empty) cell. Malformed comm cells
    /// throw here; compute cells are checked by the compute-only reader.
    std::optional<CommCell> commCell(std::string_view cell, int row, int col) const {
        if (cell.empty() || cell.front() == '(') return std::nullopt;
        const CellParts parts = split(cell);
        if (parts.type.size() <= 2) return std::nullopt; // F, I, B, W, BW
        const auto type = std::find_if(kTypes.begin(), kTypes.end(),
                                       [&](const TypeName& t) { return t.name == parts.type; });
        if (type == kTypes.end())
            fail("csv.cell", row, col,
                 quote(cell) + ": '" + std::string(parts.type) +
                     "' is not one of torch's actions (F, I, B, W, SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, "
                     "RESHARD, "
                     "REDUCE_GRAD, or WAIT_ and one of those it waits for)");
        const auto stage = number(parts.stage);
        if (!stage)
            fail("csv.cell", row, col,
                 quote(cell) + ": an action starts with its stage number, as in '2SEND_F3'");
        if (!parts.rest.empty())
            fail("csv.cell", row, col,
                 quote(cell) + ": unexpected '" + std::string(parts.rest) + "' after the " +
                     (type->hasMb ? "micro-batch number" : "action type"));
        std::optional<int> mb = -1;
        if (type->hasMb) {
            mb = number(parts.mb);
            if (!mb)
                fail("csv.cell", row, col,
                     quote(cell) + ": " + std::string(type->name) +
                         " must be followed by a micro-batch number");
        } else if (!parts.mb.empty()) {
            fail("csv.cell", row, col,
                 quote(cell) + ": " + std::string(type->name) + " names a stage, not a micro-batch, as in '" +
                     std::string(parts.stage) + std::string(type->name) + "'");
        }
        if (*stage >= kMaxStagesPerPipe || *mb >= kMaxMicrobatches)
            fail("csv.size", row, col,
                 quote(cell) + ": stages must be below " + std::to_string(kMaxStagesPerPipe) +
                     " and micro-batches below " + std::to_string(kMaxMicrobatches));
        return CommCell{*stage, *mb, type->type, type->wait};
    }

    /// The compute cells as a compute-only CSV with the comm cells left empty (idle steps), so
    /// the compute-only reader's rows and columns are the file's.
    Schedule readCompute() {
        // A BOM of its own, which the compute-only reader strips: a first cell that starts with
        // another BOM (a file with two) stays that cell's, refused there, instead of vanishing
        // from the compute-only text only (found by fuzz_torch_comms_csv).
        std::string computeOnly = "\xEF\xBB\xBF";
        for (std::size_t r = 0; r < m_rows.size(); ++r) {
            for (std::size_t c = 0; c < m_rows[r].size(); ++c) {
                if (c > 0) computeOnly += ',';
                const std::string_view cell = m_rows[r][c];
                if (commCell(cell, int(r), int(c) + 1)) continue;
                const CellParts parts = split(cell);
                if (parts.type == "BW" && parts.rest.empty()) // torch's merged backward: a whole B
                    computeOnly += std::string(parts.stage) + "B" + std::string(parts.mb);
                else
                    computeOnly += cell;
            }
            computeOnly += '\n';
        }
        TorchCsvOptions options;
        options.overlap = m_options.overlap;
        options.name = m_options.name;
        return parseTorchCsv(computeOnly, m_source, options);
    }

    /// Emits the ops of the schedule a compute cell stands for, in the compute-only reader's
    /// order: each sub-action's op, and for a whole backward (B, BW) of a split schedule its W
    /// right after it (already emitted when an older-style W cell follows).
    static void emitCompute(std::string_view cell, const std::vector<Op>& ops, std::size_t& next,
                            Program& program) {
        auto emitAction = [&](std::string_view action) {
            const CellParts parts = split(trimBlanks(action));
            const auto stage = number(parts.stage), mb = number(parts.mb);
            if (!stage || !mb) return;
            auto take = [&](OpKind kind) {
                const bool taken = next < ops.size() && ops[next].kind == kind && ops[next].stage == *stage &&
                                   ops[next].mb == *mb;
                if (taken) program.instructions.push_back(compute(ops[next++]));
                return taken;
            };
            if (parts.type == "F") take(OpKind::F);
            const bool whole = parts.type == "B" || parts.type == "BW";
            if (parts.type == "I" || whole) take(OpKind::B);
            // A whole backward of a split schedule is its B and W, run as one action.
            if ((parts.type == "W" || whole) && take(OpKind::W) && whole) {
                auto& ins = program.instructions;
                const Instruction& w = ins.back();
                ins.back().wholeBackward = true;
                if (ins.size() >= 2) {
                    Instruction& b = ins[ins.size() - 2];
                    b.wholeBackward = b.kind == InstrKind::Compute && b.op == OpKind::B &&
                                      b.stage == w.stage && b.mb == w.mb && b.pipe == w.pipe;
                }
            }
        };
        if (cell.front() != '(') return emitAction(cell);
        std::string_view inner = cell.substr(1, cell.find(')') - 1);
        for (;;) {
            const std::size_t semi = inner.find(';');
            emitAction(inner.substr(0, semi));
            if (semi == std::string_view::npos) break;
            inner.remove_prefix(semi + 1);
        }
    }

    Lowered build(const Schedule& s) {
        Lowered l = loweredShell(s);
        const auto stages = std::size_t(s.stagesPerPipe), mbs = std::size_t(s.microbatches);
        // [type][stage][mb] -> (row, col) of the transfer's cell; row -1 when absent.
        std::vector<std::pair<std::int32_t, std::int32_t>> seen(4 * stages * mbs, {-1, 0});
        std::vector<std::int32_t> syncRow(stages, -1);
        bool reduces = false;
        for (int r = 0; r < s.devices; ++r) {
            Program& program = l.programs[std::size_t(r)];
            program.rank = r;
            const std::vector<Op>& ops = s.order[std::size_t(r)];
            std::size_t next = 0;
            // The latest instruction of each identity, for the waits: (type, stage, mb) -> index.
            std::vector<std::pair<std::size_t, std::int32_t>> latest;
            for (std::size_t c = 0; c < m_rows[std::size_t(r)].size(); ++c) {
                const std::string_view cell = m_rows[std::size_t(r)][c];
                const int col = int(c) + 1;
                if (cell.empty()) continue;
                const auto comm = commCell(cell, r, col);
                if (!comm) {
                    emitCompute(cell, ops, next, program);
                    continue;
                }
                checkStage(s, *comm, r, col, cell);
                const std::size_t identity =
                    (std::size_t(comm->type) * stages + std::size_t(comm->stage)) * (mbs + 1) +
                    std::size_t(comm->mb + 1);
                if (comm->wait) {
                    const auto target = std::find_if(latest.rbegin(), latest.rend(), [&](const auto& entry) {
                        return entry.first == identity;
                    });
                    if (target == latest.rend())
                        fail("csv.wait", r, col,
                             quote(cell) + " waits for " +
                                 quote(std::to_string(comm->stage) + std::string(typeName(comm->type)) +
                                       (comm->mb >= 0 ? std::to_string(comm->mb) : "")) +
                                 ", which rank " + std::to_string(r) + " has not posted before it");
                    Instruction in;
                    in.kind = InstrKind::Wait;
                    in.waits = program.instructions[std::size_t(target->second)].kind;
                    in.dir = isTransferType(comm->type) ? transferDir(comm->type) : Direction::F;
                    in.stage = comm->stage;
                    in.mb = comm->mb;
                    in.ref = target->second;
                    program.instructions.push_back(in);
                    continue;
                }
                latest.emplace_back(identity, std::int32_t(program.instructions.size()));
                Instruction in;
                in.stage = comm->stage;
                in.mb = comm->mb;
                if (isTransferType(comm->type)) {
                    auto& first = seen[(std::size_t(comm->type) * stages + std::size_t(comm->stage)) * mbs +
                                       std::size_t(comm->mb)];
                    if (first.first >= 0)
                        fail("csv.duplicate", r, col,
                             quote(cell) + " appears twice (first at row " + std::to_string(first.first + 1) +
                                 ", column " + std::to_string(first.second) +
                                 "): each transfer is posted once");
                    first = {r, col};
                    in.kind = transferKind(comm->type);
                    in.dir = transferDir(comm->type);
                } else if (comm->type == CommType::ReduceGrad) {
                    if (syncRow[std::size_t(comm->stage)] >= 0)
                        fail("csv.duplicate", r, col,
                             quote(cell) + ": stage " + std::to_string(comm->stage) +
                                 " reduces its gradients twice");
                    syncRow[std::size_t(comm->stage)] = r;
                    reduces = true;
                    in.kind = InstrKind::GradSync;
                    in.op = OpKind::GradSync;
                    in.mb = -1;
                } else {
                    in.kind = comm->type == CommType::Unshard ? InstrKind::Unshard : InstrKind::Reshard;
                    in.mb = -1;
                }
                program.instructions.push_back(in);
            }
        }
        for (int r = 0; r < s.devices; ++r) {
            std::size_t computed = 0;
            for (const Instruction& in : l.programs[std::size_t(r)].instructions)
                computed += in.kind == InstrKind::Compute;
            if (computed != s.order[std::size_t(r)].size())
                throw std::logic_error(
                    "parseTorchCommsCsv: the compute cells of a row do not map onto its ops");
        }
        checkComplete(s, seen);
        if (reduces) appendOptimizers(s, l);
        annotatePrograms(l, m_options.lower);
        return l;
    }

    static Instruction compute(const Op& op) {
        Instruction in;
        in.op = op.kind;
        in.pipe = op.pipe;
        in.stage = op.stage;
        in.mb = op.mb;
        return in;
    }

    /// The stage must run on this rank, a transfer's other stage on another, the micro-batch exist.
    void checkStage(const Schedule& s, const CommCell& comm, int r, int col, std::string_view cell) const {
        if (comm.stage >= s.stagesPerPipe || s.slot(0, comm.stage).device != r)
            fail("csv.message", r, col,
                 quote(cell) + ": stage " + std::to_string(comm.stage) +
                     (comm.stage >= s.stagesPerPipe
                          ? " does not exist (the compute cells name stages 0.." +
                                std::to_string(s.stagesPerPipe - 1) + ")"
                          : " runs on rank " + std::to_string(s.slot(0, comm.stage).device)) +
                     ": a rank's actions name its own stages");
        if (comm.mb >= s.microbatches)
            fail("csv.message", r, col,
                 quote(cell) + ": micro-batch " + std::to_string(comm.mb) +
                     " does not exist (the compute cells name 0.." + std::to_string(s.microbatches - 1) +
                     ")");
        if (!isTransferType(comm.type)) return;
        Instruction probe;
        probe.kind = transferKind(comm.type);
        probe.dir = transferDir(comm.type);
        probe.stage = comm.stage;
        const int other = peerStage(probe);
        if (other < 0 || other >= s.stagesPerPipe)
            fail("csv.message", r, col,
                 quote(cell) + ": stage " + std::to_string(comm.stage) + " has no stage " +
                     std::to_string(other) + " to " +
                     (probe.kind == InstrKind::Send ? "send to" : "receive from"));
        if (s.slot(0, other).device == r)
            fail("csv.message", r, col,
                 quote(cell) + ": stages " + std::to_string(comm.stage) + " and " + std::to_string(other) +
                     " both run on rank " + std::to_string(r) +
                     ", which hands the tensor over locally (no transfer)");
    }

    /// Every transfer between ranks has its send and its receive.
    void checkComplete(const Schedule& s,
                       const std::vector<std::pair<std::int32_t, std::int32_t>>& seen) const {
        const auto stages = std::size_t(s.stagesPerPipe), mbs = std::size_t(s.microbatches);
        for (std::size_t st = 0; st + 1 < stages; ++st) {
            const int lower = s.slot(0, int(st)).device, upper = s.slot(0, int(st) + 1).device;
            if (lower == upper) continue;
            for (std::size_t mb = 0; mb < mbs; ++mb) {
                const std::array<std::pair<CommType, std::size_t>, 4> needed{
                    std::pair{CommType::SendF, st}, std::pair{CommType::RecvF, st + 1},
                    std::pair{CommType::SendB, st + 1}, std::pair{CommType::RecvB, st}};
                for (const auto& [type, stage] : needed) {
                    if (seen[(std::size_t(type) * stages + stage) * mbs + mb].first >= 0) continue;
                    const int rank = s.slot(0, int(stage)).device;
                    fail("csv.message", rank, 0,
                         "rank " + std::to_string(rank) + " (row " + std::to_string(rank + 1) + ") has no " +
                             quote(std::to_string(stage) + std::string(typeName(type)) + std::to_string(mb)) +
                             ": stages " + std::to_string(st) + " and " + std::to_string(st + 1) +
                             " run on ranks " + std::to_string(lower) + " and " + std::to_string(upper) +
                             ", so every micro-batch's activation and gradient cross between them");
                }
            }
        }
    }

    /// The optimizer steps that end an iteration, one per stage, in chunk order (as
    /// addIterationTail appends them).
    static void appendOptimizers(const Schedule& s, Lowered& l) {
        for (int r = 0; r < s.devices; ++r) {
            std::vector<std::pair<int, int>> chunks; // (chunk, stage)
            for (int stage = 0; stage < s.stagesPerPipe; ++stage)
                if (s.slot(0, stage).device == r) chunks.emplace_back(s.slot(0, stage).chunk, stage);
            std::sort(chunks.begin(), chunks.end());
            for (const auto& [chunk, stage] : chunks) {
                Instruction in;
                in.kind = InstrKind::Optimizer;
                in.op = OpKind::Optimizer;
                in.stage = stage;
                l.programs[std::size_t(r)].instructions.push_back(in);
            }
        }
    }

    const std::string& m_source;
    const TorchCommsCsvOptions& m_options;
    std::vector<std::vector<std::string_view>> m_rows;
    std::size_t m_cellCount = 0;
};

std::string cellOf(const Lowered& l, const Instruction& in) {
    const std::string stage = std::to_string(in.stage);
    const std::string mb = in.mb >= 0 ? std::to_string(in.mb) : "";
    switch (in.kind) {
    case InstrKind::Compute: {
        const Op op{in.op, in.pipe, std::uint16_t(l.placement[in.pipe][std::size_t(in.stage)].chunk),
                    in.stage, in.mb};
        return actionString(op, l.splitBackward);
    }
    case InstrKind::Send:
    case InstrKind::Recv:
        return stage + transferName(in.kind, in.dir) + mb;
    case InstrKind::GradSync:
        return stage + "REDUCE_GRAD";
    case InstrKind::Unshard:
        return stage + "UNSHARD";
    case InstrKind::Reshard:
        return stage + "RESHARD";
    case InstrKind::Wait:
        if (in.waits == InstrKind::Send || in.waits == InstrKind::Recv)
            return stage + "WAIT_" + transferName(in.waits, in.dir) + mb;
        return stage + "WAIT_" +
               (in.waits == InstrKind::GradSync ? std::string("REDUCE_GRAD") : instrKindName(in.waits));
    case InstrKind::Optimizer:
        break;
    }
    return {};
}

/// Whether `heads` (sorted by pipe, stage, micro-batch, as Schedule keeps its slot heads) lists
/// the op of compute instruction `in`.
bool heads(const std::vector<Op>& heads, const Instruction& in) {
    const auto key = std::tuple(in.pipe, in.stage, in.mb);
    const auto it = std::lower_bound(heads.begin(), heads.end(), key, [](const Op& op, const auto& k) {
        return std::tuple(op.pipe, op.stage, op.mb) < k;
    });
    return it != heads.end() && std::tuple(it->pipe, it->stage, it->mb) == key;
}

bool isCompute(const std::vector<Instruction>& ins, std::size_t i, OpKind op) {
    return i < ins.size() && ins[i].kind == InstrKind::Compute && ins[i].op == op;
}

/// The cell of the slot of `schedule` that starts at instruction i, and how many instructions it
/// covers; 0 when none starts there.
std::size_t slotCell(const Lowered& l, const Schedule& schedule, const std::vector<Instruction>& ins,
                     std::size_t i, std::string& cell) {
    auto whole = [&](std::size_t b) { // "3B1": a whole backward, even in a split schedule
        const Instruction& in = ins[b];
        const Op op{OpKind::B, in.pipe, std::uint16_t(l.placement[in.pipe][std::size_t(in.stage)].chunk),
                    in.stage, in.mb};
        return actionString(op, false);
    };
    auto withW = [&](std::size_t b) { // the B at b is followed by its own W
        return isCompute(ins, b + 1, OpKind::W) && ins[b + 1].stage == ins[b].stage &&
               ins[b + 1].mb == ins[b].mb && ins[b + 1].pipe == ins[b].pipe;
    };
    if (isCompute(ins, i, OpKind::F) && isCompute(ins, i + 1, OpKind::B) &&
        heads(schedule.overlapped, ins[i]) && (!l.splitBackward || withW(i + 1))) {
        cell = "(" + cellOf(l, ins[i]) + ";" + whole(i + 1) + ")OVERLAP_F_B";
        return l.splitBackward ? 3 : 2;
    }
    if (l.splitBackward && isCompute(ins, i, OpKind::B) && heads(schedule.wholeBackward, ins[i]) &&
        withW(i)) {
        cell = whole(i);
        return 2;
    }
    return 0;
}

std::string writeRows(const Lowered& l, const Schedule* slots) {
    if (l.pipes > 1)
        throw ValidationError(
            "csv.bidirectional", "pipes",
            "programs '" + l.name + "' run " + std::to_string(l.pipes) +
                " pipes: torch's compute+comms CSV has no way to express a second pipe (an action "
                "names a stage, not a pipe); write them as .json or .txt");
    std::string out;
    for (const Program& p : l.programs) {
        std::size_t end = p.instructions.size();
        while (end > 0 && p.instructions[end - 1].kind == InstrKind::Optimizer) --end;
        for (std::size_t i = 0; i < end; ++i) {
            const Instruction& in = p.instructions[i];
            if (in.kind == InstrKind::Optimizer)
                throw ValidationError(
                    "csv.optimizer", "rank " + std::to_string(p.rank),
                    "rank " + std::to_string(p.rank) + " steps the optimizer of stage " +
                        std::to_string(in.stage) + " at " + std::to_string(i) +
                        ", before the end of its program: torch's CSV has no optimizer action "
                        "(torch steps the optimizer after the schedule)");
            if (in.kind == InstrKind::Compute && in.op == OpKind::R)
                refuseTorchRecompute("rank " + std::to_string(p.rank),
                                     opName(Op{in.op, in.pipe, 0, in.stage, in.mb}, l.splitBackward));
            if (i > 0) out += ',';
            std::string cell;
            if (const std::size_t covered = slots ? slotCell(l, *slots, p.instructions, i, cell) : 0) {
                out += cell;
                i += covered - 1;
                continue;
            }
            out += cellOf(l, in);
        }
        out += '\n';
    }
    return out;
}

} // namespace

std::string programsToTorchCommsCsv(const Lowered& l) {
    return writeRows(l, nullptr);
}

std::string programsToTorchCommsCsv(const Lowered& l, const Schedule& schedule) {
    return writeRows(l, &schedule);
}

Lowered parseTorchCommsCsv(std::string_view text, const std::string& source,
                           const TorchCommsCsvOptions& options) {
    return CommsReader(source, options).read(text);
}

bool looksLikeTorchCommsCsv(std::string_view text) {
    for (std::string_view marker : {"SEND_", "RECV_", "REDUCE_GRAD", "UNSHARD", "RESHARD", "WAIT_"})
        if (text.find(marker) != std::string_view::npos) return true;
    return false;
}

} // namespace stagecraft
