#include "io/schedule_file.h"

#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/schedule_json.h"

#include <algorithm>
#include <cctype>

namespace stagecraft {

namespace {

enum class ScheduleFormat { TorchCsv, Json };

ScheduleFormat formatOf(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == ".csv") return ScheduleFormat::TorchCsv;
    if (ext == ".json") return ScheduleFormat::Json;
    throw ValidationError(
        "schedule_file.extension", path.string(),
        "'" + path.string() +
            "': " + (ext.empty() ? std::string("no extension") : "unknown extension '" + ext + "'") +
            ": a schedule file is .csv (torch.distributed.pipelining's compute-only CSV) or "
            ".json (Stagecraft's schedule format)");
}

} // namespace

Schedule readScheduleFile(const std::filesystem::path& path, const TorchCsvOptions& options) {
    const ScheduleFormat format = formatOf(path);
    // A file of another kind (a trace, a project) is refused from its first bytes, before it is
    // read whole.
    requireFileKind(path, format == ScheduleFormat::Json ? FileKind::ScheduleJson : FileKind::TorchCsv,
                    format == ScheduleFormat::Json ? "a schedule file" : "a torch CSV schedule");
    const std::string text = readTextFile(path);
    if (format == ScheduleFormat::TorchCsv) return parseTorchCsv(text, path.string(), options);
    return parseScheduleJson(text, path.string());
}

void writeScheduleFile(const Schedule& schedule, const std::filesystem::path& path) {
    const ScheduleFormat format = formatOf(path);
    const std::string text =
        format == ScheduleFormat::TorchCsv ? scheduleToTorchCsv(schedule) : scheduleToJson(schedule);
    writeFileAtomically(path, text);
}

} // namespace stagecraft
