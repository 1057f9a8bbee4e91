// V-1F1B, the zero-bubble repository's V schedule without the W split (`v1f1b.py`, enabled by
// `--enable-1f1b-v`): ZB-V's placement (device r holds stage r and stage 2p-1-r) with whole
// backwards, at 1F1B-like activation memory. The order depends only on p and m; it is built on a
// grid of time slots, as the reference does:
//
//  1. Each device gets a 6-slot repeating pattern with one slot for each of: a forward of its first
//     stage (F), a forward of its second stage (f), the backward of the second stage (B2), of the
//     first (B1), and the two weight-gradient slots that follow them. First-leg forwards take
//     successive slots going down the devices, second-leg forwards the next ones going back up;
//     then backward pairs down the devices (second stage) and back up (first stage), with a gap of
//     3 slots after every third pair (its phase set by p mod 3), and 3 more when p % 3 == 0.
//  2. The pattern is repeated 4p + m + 1 times; each kind's first slot on each device, in data
//     order, is micro-batch 0, and repeats before it or past micro-batch m-1 are cleared.
//  3. Column by column, ops move to the earliest free slot their dependencies allow: backwards
//     and weight slots as early as possible (a backward needs two free slots), forwards only as
//     far back as keeps the device's in-flight count (forwards minus weight slots) under the
//     pattern's peak.
//  4. The weight slots are dropped: every backward is whole.
// The reference notes (schedules-next.md §4) hold the worked golden for p = 4, m = 8.
#include "error.h"
#include "generators/generators.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace stagecraft::gen {

void checkV1f1b(const ScheduleParams& params) {
    if (params.pp < 2)
        throw ValidationError("generator.constraint", "parallel.pp",
                              "parallel.pp = " + std::to_string(params.pp) +
                                  ": v-1f1b folds the model into a V over two devices or more (pp >= 2)");
}

namespace {

constexpr int kPeriod = 6;
// The kinds of the grid, in pattern order: forwards of the first and the second stage, backwards
// of the second and the first, and the weight slots after those two backwards.
enum Kind : int { FirstF, SecondF, SecondB, FirstB, SecondW, FirstW, Kinds };
constexpr std::array<char, Kinds> kSymbol{'F', 'f', 'B', 'b', 'W', 'w'};
constexpr char kFree = ' ';

int kindOf(char symbol) {
    return int(std::find(kSymbol.begin(), kSymbol.end(), symbol) - kSymbol.begin());
}

/// Slot of each kind within the period, per device (step 1).
std::vector<std::array<int, Kinds>> pattern(int p) {
    std::vector<std::array<int, Kinds>> slot(static_cast<std::size_t>(p));
    int now = 0;
    for (int i = 0; i < p; ++i) slot[std::size_t(i)][FirstF] = ++now;
    for (int i = 0; i < p; ++i) slot[std::size_t(p - 1 - i)][SecondF] = ++now;
    ++now;
    if (p % 3 == 0) now += 3;
    int phase = (3 - (p + 2) % 3) % 3;
    auto pairAt = [&](std::size_t device, Kind backward, Kind weight) {
        slot[device][backward] = now;
        slot[device][weight] = now + 1;
        now += 2;
        if (++phase == 3) {
            phase = 0;
            now += 3;
        }
    };
    for (int i = 0; i < p; ++i) pairAt(std::size_t(i), SecondB, SecondW);
    for (int i = 0; i < p; ++i) pairAt(std::size_t(p - 1 - i), FirstB, FirstW);
    for (auto& device : slot)
        for (int& s : device) s %= kPeriod;
    return slot;
}

using Grid = std::vector<std::string>;

/// Clears `device`'s slot at `pos` and every period before it (step < 0) or after it (step > 0).
void clearRepeats(Grid& grid, int device, int pos, int step) {
    std::string& row = grid[std::size_t(device)];
    for (; pos >= 0 && pos < int(row.size()); pos += step * kPeriod) row[std::size_t(pos)] = kFree;
}

/// Steps 1 and 2: the repeated pattern with micro-batches 0..m-1 of each kind left on each device.
Grid repeatedPattern(int p, int m) {
    const auto slot = pattern(p);
    Grid grid(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        std::string period(kPeriod, kFree);
        for (int k = 0; k < Kinds; ++k) period[std::size_t(slot[std::size_t(r)][k])] = kSymbol[k];
        for (int i = 0; i < 4 * p + m + 1; ++i) grid[std::size_t(r)] += period;
    }
    // In data order (forwards down then up, backwards likewise), the first occurrence at or after
    // a running position is micro-batch 0 of that kind on that device.
    int index = kPeriod;
    for (const char symbol : {'F', 'f', 'B', 'b'}) {
        const bool down = symbol == 'F' || symbol == 'B';
        for (int n = 0; n < p; ++n) {
            const int r = down ? n : p - 1 - n;
            std::string& row = grid[std::size_t(r)];
            for (int j = 0; j < kPeriod; ++j) {
                if (row[std::size_t(index)] != symbol) {
                    ++index;
                    continue;
                }
                clearRepeats(grid, r, index - kPeriod, -1);
                clearRepeats(grid, r, index + kPeriod * m, +1);
                ++index;
                if (symbol == 'B' || symbol == 'b') {
                    const char weight = symbol == 'B' ? 'W' : 'w';
                    for (int k = 0; k < kPeriod; ++k)
                        if (row[std::size_t(index) + std::size_t(k)] == weight) {
                            clearRepeats(grid, r, index + k - kPeriod, -1);
                            clearRepeats(grid, r, index + k + kPeriod * m, +1);
                            break;
                        }
                }
                break;
            }
        }
    }
    return grid;
}

/// Step 3: moves every op to the earliest slot its dependencies and the memory peak allow.
void compact(Grid& grid, int m) {
    const int p = int(grid.size());
    const std::size_t length = grid[0].size();
    // In-flight count after each slot (forwards +1, weight slots -1) and its peak over the grid.
    std::vector<std::vector<int>> inFlight(std::size_t(p), std::vector<int>(length, 0));
    int peak = 0;
    for (int r = 0; r < p; ++r) {
        int now = 0;
        for (std::size_t i = 0; i < length; ++i) {
            const char c = grid[std::size_t(r)][i];
            if (c == 'F' || c == 'f') ++now;
            if (c == 'W' || c == 'w') --now;
            inFlight[std::size_t(r)][i] = now;
            peak = std::max(peak, now);
        }
    }
    // where[r][k][c]: the slot of the k-th (1-based) op of kind c on device r, -1 while unplaced.
    std::vector<std::vector<std::array<int, Kinds>>> where(
        std::size_t(p), std::vector<std::array<int, Kinds>>(std::size_t(m) + 2, {-1, -1, -1, -1, -1, -1}));
    std::vector<std::array<int, Kinds>> seen(std::size_t(p), {0, 0, 0, 0, 0, 0});
    auto at = [&](int r, int k, char c) { return where[std::size_t(r)][std::size_t(k)][kindOf(c)]; };
    for (int i = 0; i < int(length); ++i)
        for (int r = 0; r < p; ++r) {
            std::string& row = grid[std::size_t(r)];
            const char c = row[std::size_t(i)];
            if (c == kFree) continue;
            const int k = ++seen[std::size_t(r)][kindOf(c)];
            int pos = k > 1 ? at(r, k - 1, c) : -1;
            switch (c) {
            case 'W':
                pos = std::max(pos, at(r, k, 'B'));
                break;
            case 'w':
                pos = std::max(pos, at(r, k, 'b'));
                break;
            case 'F':
                if (r > 0) pos = std::max(pos, at(r - 1, k, 'F'));
                break;
            case 'f':
                pos = std::max(pos, r != p - 1 ? at(r + 1, k, 'f') : at(r, k, 'F'));
                break;
            // A backward and its weight slot go together: the next device's backward waits for both.
            case 'B':
                pos = std::max(pos, r != 0 ? at(r - 1, k, 'W') : at(r, k, 'f'));
                break;
            case 'b':
                pos = std::max(pos, r != p - 1 ? at(r + 1, k, 'w') : at(r, k, 'W'));
                break;
            default:
                break;
            }
            ++pos;
            while (pos < i && row[std::size_t(pos)] != kFree) ++pos;
            if (c == 'B' || c == 'b')
                while (pos < i && (row[std::size_t(pos)] != kFree || row[std::size_t(pos) + 1] != kFree))
                    ++pos;
            auto moveTo = [&](int to) {
                row[std::size_t(to)] = c;
                row[std::size_t(i)] = kFree;
                where[std::size_t(r)][std::size_t(k)][kindOf(c)] = to;
            };
            if (pos == i) {
                where[std::size_t(r)][std::size_t(k)][kindOf(c)] = i;
                continue;
            }
            if (c != 'F' && c != 'f') {
                moveTo(pos);
                if (c == 'W' || c == 'w')
                    for (int j = pos; j < i; ++j) --inFlight[std::size_t(r)][std::size_t(j)];
                continue;
            }
            // A forward moves back only while the device stays under the peak in flight.
            int place = i;
            while (place > pos && inFlight[std::size_t(r)][std::size_t(place - 1)] < peak) --place;
            while (place < i && row[std::size_t(place)] != kFree) ++place;
            if (place == i) {
                where[std::size_t(r)][std::size_t(k)][kindOf(c)] = i;
                continue;
            }
            moveTo(place);
            for (int j = place; j < i; ++j) ++inFlight[std::size_t(r)][std::size_t(j)];
        }
}

} // namespace

Schedule v1f1b(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Grid grid = repeatedPattern(p, m);
    compact(grid, m);
    Schedule s = makeSchedule("v-1f1b", p, m, {vShapePlacement(p)}, false);
    for (int r = 0; r < p; ++r) {
        std::array<int, Kinds> count{};
        const int first = r, second = 2 * p - 1 - r;
        for (const char c : grid[std::size_t(r)]) {
            if (c == kFree) continue;
            const int kind = kindOf(c);
            const int mb = count[std::size_t(kind)]++;
            if (mb >= m) continue;
            switch (kind) {
            case FirstF:
                pushOp(s, r, OpKind::F, 0, first, mb);
                break;
            case SecondF:
                pushOp(s, r, OpKind::F, 0, second, mb);
                break;
            case SecondB:
                pushOp(s, r, OpKind::B, 0, second, mb);
                break;
            case FirstB:
                pushOp(s, r, OpKind::B, 0, first, mb);
                break;
            default:
                break; // step 4: the weight slots are dropped
            }
        }
    }
    return s;
}

} // namespace stagecraft::gen
