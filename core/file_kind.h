#pragma once
// What a file is, from its first bytes: readers check it before reading a file whole, so that a
// trace of hundreds of MB given where a project is expected is refused at once, with a message
// naming what the file is and what reads it, instead of after parsing all of it.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace stagecraft {

enum class FileKind {
    Unknown,      ///< nothing in the first bytes tells
    Project,      ///< a JSON object with "stagecraft"
    ScheduleJson, ///< a JSON object with "stagecraft_schedule"
    ProgramsJson, ///< a JSON object with "stagecraft_programs"
    ChromeTrace,  ///< a JSON array, or an object with traceEvents / otherData / Kineto's keys
    NsysJson,     ///< Nsight Systems' JSON export: an object per line, the first with "Type"
    Sqlite,       ///< an SQLite database (Nsight Systems' .sqlite export)
    TorchCsv,     ///< a torch.distributed.pipelining schedule CSV: a row of actions per rank
    Gzip,         ///< gzip-compressed bytes
};

/// Traces of a run: what the measured overlay reads.
bool isTraceKind(FileKind kind);

/// The bytes the sniffers look at.
inline constexpr std::size_t kSniffBytes = std::size_t(64) << 10;

/// The first `bytes` of the file at `path` (fewer when it is shorter; "" when it cannot be read).
std::string fileHead(const std::filesystem::path& path, std::size_t bytes = kSniffBytes);

/// The kind of a text from its beginning `head` (the first kSniffBytes or fewer).
FileKind sniffTextKind(std::string_view head);
/// The same for a file: reads at most kSniffBytes of it. Unknown when it cannot be read (the
/// reader that follows reports why).
FileKind sniffFileKind(const std::filesystem::path& path);

/// Why an SQLite database is cut short, from its 100-byte header and the file's size: the header
/// counts its pages, and a copy that did not finish lacks some ("" when whole, or when the header
/// does not tell). SQLite itself reports a missing page only as a missing table, or not at all.
std::string sqliteCutShort(std::string_view head, std::uintmax_t fileBytes);

/// "a Chrome trace", "a Stagecraft project", ...
std::string fileKindName(FileKind kind);
/// Which commands read files of that kind ("" for Unknown).
std::string fileKindReaders(FileKind kind);

/// Throws Error("io.kind") when the file is plainly of another kind than `expected` (Unknown
/// passes: the reader decides), naming the file, what it is and what reads it. `wanted` names
/// what the caller reads ("a project").
void requireFileKind(const std::filesystem::path& path, FileKind expected, const std::string& wanted);

} // namespace stagecraft
