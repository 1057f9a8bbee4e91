#pragma once
// Frees a large value on a pool thread. Dropping the last reference to a result of millions of ops
// (or to the chart rows built of it) returns hundreds of MB to the system, which holds up the
// thread that does it for tens of milliseconds: the window's thread hands such values here
// instead, once nothing it draws points into them.

#include <QThreadPool>
#include <QTimer>
#include <memory>
#include <utility>

namespace stagecraft::gui {

/// After a short delay: the window first takes and draws the new result, without waiting on
/// the kernel's memory lock for the pages the old one gives back meanwhile.
constexpr int kReleaseDelayMs = 250;

template <typename T>
void releaseOffThread(T value) {
    auto box = std::make_shared<T>(std::move(value));
    QTimer::singleShot(kReleaseDelayMs, QThreadPool::globalInstance(), [box = std::move(box)]() mutable {
        QThreadPool::globalInstance()->start([box = std::move(box)]() mutable { box.reset(); });
    });
}

} // namespace stagecraft::gui
