#include "io/read_progress.h"

#include "error.h"

#include <utility>

namespace stagecraft {

namespace {

thread_local ReadProgress* t_current = nullptr;

} // namespace

ReadProgress::ReadProgress(Callback callback) : m_callback(std::move(callback)), m_previous(t_current) {
    t_current = this;
}

ReadProgress::~ReadProgress() {
    t_current = m_previous;
}

void ReadProgress::report(std::uint64_t read, std::uint64_t size) {
    if (t_current && t_current->m_callback && !t_current->m_callback(read, size))
        throw Error("work.cancelled", "the read was cancelled");
}

} // namespace stagecraft
