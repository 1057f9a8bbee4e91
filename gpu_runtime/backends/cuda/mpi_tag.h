#pragma once
// Stagecraft's transfer tags are unique 64-bit numbers; MPI accepts tags in [0, MPI_TAG_UB]
// only (MPI_TAG_UB is at least 32767; Open MPI gives 2^31 - 1). Pure C++ so that it is tested on
// the host.

#include "exec/device_layer.h"

#include <cstdint>
#include <string>

namespace stagecraft::runtime::cuda {

/// `tag` itself when it fits, else `tag % (tagUpperBound + 1)`. Wrapping can give two transfers
/// one tag; that is harmless because MPI matches the messages of one (source, tag, communicator)
/// in the order they were posted and both sides of a peer pair post its transfers in one order.
inline int mpiTag(std::int64_t tag, int tagUpperBound) {
    if (tag < 0) throw BackendError("transfer tag " + std::to_string(tag) + " is negative");
    if (tagUpperBound < 0) throw BackendError("MPI_TAG_UB " + std::to_string(tagUpperBound) + " is negative");
    if (tag <= tagUpperBound) return int(tag);
    return int(tag % (std::int64_t(tagUpperBound) + 1));
}

} // namespace stagecraft::runtime::cuda
