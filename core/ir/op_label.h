#pragma once
// The short op labels of charts ("F3", "B0b", "F2'", "S"), one implementation for the text Gantt,
// the chart layout and anything else that names ops in cells.

#include "ir/op.h"

#include <string>

namespace stagecraft {

struct Schedule;

/// What a label needs of a schedule's shape: how a device's chunks split over the pipes. A
/// timeline read from a file carries these numbers without its schedule.
struct ChunkShape {
    int pipes = 1;
    int stagesPerPipe = 0;
    int chunksPerDevice = 1;
    int slices = 1; ///< sequence slices: a unit u reads "j.q" (micro-batch j, slice q)
};

ChunkShape chunkShapeOf(const Schedule& schedule);

/// Chunks of one pipe per device: v for interleaved/V schedules, 1 for Chimera, 2 for BitPipe.
int chunksPerPipe(const ChunkShape& shape);

/// Which of the `chunksPerPipe(shape)` chunks of its pipe an op belongs to (0-based). One pipe:
/// the placement's chunk; two pipes: the stage's position along its pipe's chunks. Clamped to
/// the valid range, so a timeline from a file with odd numbers still gets a letter.
int chunkInPipe(const ChunkShape& shape, const Op& op);

/// Kind and micro-batch ("F3", "B0", "W7", "S" for a gradient sync), then the chunk letter when
/// devices hold several chunks of one pipe ("F3b"), then a prime for the second pipe ("F3'").
std::string opLabel(const ChunkShape& shape, const Op& op);
std::string opLabel(const Schedule& schedule, const Op& op);

/// opLabel without the kind letter, as the papers write their cells ("3", "3b'"). Ops without a
/// micro-batch (sync, optimizer) keep their letter ("S'").
std::string shortOpLabel(const ChunkShape& shape, const Op& op);

/// What a chart writes in a box, one convention for every schedule as the papers draw them: the
/// micro-batch number, with a prime for the second pipe of a bidirectional schedule ("3", "3'").
/// The kind is the box's colour and the chunk its shade, so neither is spelt out. Ops without a
/// micro-batch keep their letter ("S", "O'").
/// With sequence slices (`slices` > 1) the micro-batch reads with its slice ("3.1").
std::string cellOpLabel(const Op& op, int slices = 1);

} // namespace stagecraft
