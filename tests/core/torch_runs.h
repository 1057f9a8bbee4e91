#pragma once
// The recorded torch.distributed.pipelining runs (tests/data/torch-runs, unpacked into the build
// tree by tests/CMakeLists.txt): one 8-layer model, 7 schedule classes, sets pp2_h1024, pp2_h512
// and pp4_h512, 32 profiled steps each (8 recordings of 4 steps, in new processes each).

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
    const std::string v = cls == "GPipe" || cls == "1F1B" ? "1" : "2"; // one stage per rank
    return kTorchRuns / set / (cls + "_pp" + std::to_string(torchRunWorld(set)) + "_v" + v + "_m8_h" + h);
}

/// The per-rank traces of one recording of a run: repeat `repeat` of a run recorded in repeats
/// (`<prefix>_rep<k>_rank<R>.json`), the one recording otherwise (`<prefix>_rank<R>.json`).
inline std::vector<std::filesystem::path> torchRunRecording(const std::string& set, const std::string& cls,
                                                            int repeat = 0) {
    std::string prefix = torchRunPrefix(set, cls).string();
    if (!std::filesystem::exists(prefix + "_rank0.json")) prefix += "_rep" + std::to_string(repeat);
    std::vector<std::filesystem::path> files;
    for (int r = 0; r < torchRunWorld(set); ++r)
        files.emplace_back(prefix + "_rank" + std::to_string(r) + ".json");
    return files;
}

/// Every per-rank trace of a run, of every repeat where it was recorded in repeats (the readers
/// join a rank's repeats into one trace of all their iterations).
inline std::vector<std::filesystem::path> torchRunFiles(const std::string& set, const std::string& cls) {
    std::vector<std::filesystem::path> files = torchRunRecording(set, cls, 0);
    for (int k = 1; std::filesystem::exists(torchRunRecording(set, cls, k).front()) &&
                    torchRunRecording(set, cls, k) != torchRunRecording(set, cls, 0);
         ++k)
        for (auto& f : torchRunRecording(set, cls, k)) files.push_back(std::move(f));
    return files;
}

/// True for the classes that split the backward into I and W (their runs measure no whole B).
inline bool torchRunSplitsBackward(const std::string& cls) {
    return cls.find("ZeroBubble") != std::string::npos || cls == "DualPipeV";
}

/// The pairs issue 22's acceptance names: those whose op kinds the fitted run measured (unsplit
/// from unsplit, split from split). DualPipeV runs whole backwards (in its overlapped slots) and
/// split ones: its run measures every kind, and no other class's measures all of its.
inline bool torchRunAcceptancePair(const std::string& fitted, const std::string& predicted) {
    if (fitted == "DualPipeV") return true;
    return torchRunSplitsBackward(fitted) == torchRunSplitsBackward(predicted) && predicted != "DualPipeV";
}

} // namespace stagecraft::test
