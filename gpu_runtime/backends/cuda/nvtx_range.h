#pragma once
// An NVTX range around the enqueue of one op, named with its label ("PP:2F0"): Nsight Systems
// projects it onto the GPU work launched inside it. nvtx3 is header-only: nothing is linked and
// the calls cost almost nothing unless a profiler is attached.

#include <nvtx3/nvToolsExt.h>
#include <string>

namespace stagecraft::runtime::cuda {

class NvtxRange {
  public:
    explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

} // namespace stagecraft::runtime::cuda
