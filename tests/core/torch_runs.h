#pragma once
// The recorded torch.distributed.pipelining runs (tests/data/torch-runs, unpacked into the build
// tree by tests/CMakeLists.txt): one 8-layer model, 7 schedule classes, sets pp2_h1024, pp2_h512
// and pp4_h512, 32 profiled steps each.

#include <filesystem>
#include <string>
#include <vector>

namespace stagecraft::test {

inline const std::filesystem::path kTorchRuns = STAGECRAFT_TORCH_RUNS_DIR;

/// The ranks of set `set` (pp2_* or pp4_*).
inline int torchRunWorld(const std::string& set) {
    return set.rfind("pp4", 0) == 0 ? 4 : 2;
}

/// The common prefix of one recorded run's files: `<prefix>_rank0.json` ..., `<prefix>.csv`.
inline std::filesystem::path torchRunPrefix(const std::string& set, const std::string& cls) {
    const std::string h = set.substr(set.find("_h") + 2);
    const std::string v = cls == "GPipe" ? "1" : "2"; // GPipe runs one stage per rank
    return kTorchRuns / set / (cls + "_pp" + std::to_string(torchRunWorld(set)) + "_v" + v + "_m8_h" + h);
}

/// The per-rank traces of one recorded run.
inline std::vector<std::filesystem::path> torchRunFiles(const std::string& set, const std::string& cls) {
    std::vector<std::filesystem::path> files;
    const std::string prefix = torchRunPrefix(set, cls).string();
    for (int r = 0; r < torchRunWorld(set); ++r)
        files.emplace_back(prefix + "_rank" + std::to_string(r) + ".json");
    return files;
}

/// True for the classes that split the backward into I and W (their runs measure no whole B).
inline bool torchRunSplitsBackward(const std::string& cls) {
    return cls.find("ZeroBubble") != std::string::npos || cls == "DualPipeV";
}

/// The pairs issue 22's acceptance names: those whose op kinds the fitted run measured (unsplit
/// from unsplit, split from split); DualPipeV's overlapped whole backwards are measured by none.
inline bool torchRunAcceptancePair(const std::string& fitted, const std::string& predicted) {
    return torchRunSplitsBackward(fitted) == torchRunSplitsBackward(predicted) && predicted != "DualPipeV";
}

} // namespace stagecraft::test
