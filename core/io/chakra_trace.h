#pragma once
// The lowered programs as Chakra execution traces (MLCommons Chakra, the format ASTRA-sim and other
// network simulators replay): one file per rank, `<prefix>.<rank>.et`, each a stream of
// length-prefixed protobuf messages, a GlobalMetadata then one Node per instruction that does work.
// Compute ops are COMP_NODEs with the prediction's durations; sends and receives COMM_SEND_NODE /
// COMM_RECV_NODE with their peer, tag and bytes (the attributes Chakra's feeder reads: comm_src,
// comm_dst, comm_tag, comm_size); gradient syncs COMM_COLL_NODEs (all-reduce). Dependencies: a
// compute op waits for the receive of its input (data) and the rank's previous compute op
// (control: one compute stream); a send for the op that produced its tensor; a sync for the
// stage's last backward on the rank. The encoding is written by hand from Chakra's published
// schema/protobuf/et_def.proto (field numbers in chakra_trace.cpp).

#include "passes/program.h"
#include "sim/timeline.h"

#include <filesystem>
#include <string>
#include <vector>

namespace stagecraft {

/// Each rank's trace, [rank]. Compute durations come from `predicted` (the timeline of the schedule
/// `programs` was lowered from): an op it lacks is a ValidationError("trace.write").
std::vector<std::string> programsToChakra(const Lowered& programs, const Timeline& predicted);

/// Writes `<prefix>.<rank>.et` for every rank, each atomically; returns the paths.
std::vector<std::filesystem::path> writeChakraTraces(const Lowered& programs, const Timeline& predicted,
                                                     const std::string& prefix);

} // namespace stagecraft
