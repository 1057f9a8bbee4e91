#include "io/trace_preview.h"

#include <utility>

namespace stagecraft {

namespace {

thread_local TracePreview* t_current = nullptr;

} // namespace

TracePreview::TracePreview(Callback callback) : m_callback(std::move(callback)), m_previous(t_current) {
    t_current = this;
}

TracePreview::~TracePreview() {
    t_current = m_previous;
}

bool TracePreview::active() {
    return t_current && t_current->m_callback;
}

void TracePreview::publish(std::span<const TimelineEvent> block) {
    if (active() && !block.empty()) t_current->m_callback(block);
}

} // namespace stagecraft
