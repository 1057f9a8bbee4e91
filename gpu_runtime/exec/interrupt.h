#pragma once
// A stop request from outside (SIGTERM, SIGINT: mpirun ending the job after another rank failed,
// or a user's Ctrl-C). Waits poll it next to their deadline, so rank 0 still writes the partial
// trace before it exits.

#include "exec/device_layer.h"

namespace stagecraft::runtime {

/// Installs the handlers (once per process).
void installInterruptHandlers();
/// True once a stop was requested.
bool interruptRequested();
/// Throws DeadlineExceeded("... stopped by signal N") when a stop was requested: a wait calls it
/// on every poll.
void throwIfInterrupted(const char* where);

} // namespace stagecraft::runtime
