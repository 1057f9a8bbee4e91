#pragma once
// Progress and cancellation of long work that a front end runs off its UI thread: a generator's
// search, an analysis of big schedules. Plain data: the worker reads the flag between steps and
// reports the share of the work done; a front end sets the flag and shows the share.

#include "error.h"

#include <atomic>
#include <functional>

namespace stagecraft {

struct WorkControl {
    /// Called with the fraction of this work done (0..1, never decreasing), on the worker's thread.
    std::function<void(double)> progress;
    /// When set and true, the work stops at its next step.
    const std::atomic<bool>* cancel = nullptr;

    bool stopRequested() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void report(double fraction) const {
        if (progress) progress(fraction);
    }
    /// The control of a part of this work that spans [from, to) of it: same flag, its own
    /// fractions mapped into that range.
    WorkControl part(double from, double to) const {
        WorkControl sub;
        sub.cancel = cancel;
        if (progress)
            sub.progress = [whole = progress, from, to](double f) { whole(from + (to - from) * f); };
        return sub;
    }
};

/// Throws Error "work.cancelled" ("<what> was cancelled") when `control` is set and its flag is.
inline void throwIfCancelled(const WorkControl* control, const std::string& what) {
    if (control && control->stopRequested()) throw Error("work.cancelled", what + " was cancelled");
}

} // namespace stagecraft
