#include "exec/interrupt.h"

#include <csignal>
#include <string>

namespace stagecraft::runtime {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onStopSignal(int signal) {
    g_signal = signal;
}

} // namespace

void installInterruptHandlers() {
    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
}

bool interruptRequested() {
    return g_signal != 0;
}

void throwIfInterrupted(const char* where) {
    if (g_signal != 0)
        throw DeadlineExceeded(std::string(where) + ": stopped by signal " + std::to_string(int(g_signal)) +
                               " (the job is ending: another rank failed, or it was interrupted)");
}

} // namespace stagecraft::runtime
