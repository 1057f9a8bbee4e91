#include "file_kind.h"

#include "error.h"

#include <algorithm>
#include <fstream>
#include <vector>

namespace stagecraft {

namespace {

/// A cursor over the head of a JSON text that never reads past it; out of bytes is `done`.
struct HeadCursor {
    std::string_view text;
    std::size_t at = 0;
    bool done() const { return at >= text.size(); }
    char peek() const { return text[at]; }
    void skipSpace() {
        while (!done() && (peek() == ' ' || peek() == '\n' || peek() == '\r' || peek() == '\t')) ++at;
    }
    /// A string at `at` (its quote); the raw body, escapes kept. False when the head ends first.
    bool string(std::string_view& body) {
        const std::size_t start = ++at;
        while (!done() && peek() != '"') at += peek() == '\\' ? 2 : 1;
        if (done()) return false;
        body = text.substr(start, at - start);
        ++at;
        return true;
    }
    /// Skips one value (only as far as telling where it ends). False when the head ends first.
    bool skipValue() {
        skipSpace();
        if (done()) return false;
        if (peek() == '"') {
            std::string_view body;
            return string(body);
        }
        if (peek() != '{' && peek() != '[') {
            while (!done() && peek() != ',' && peek() != '}' && peek() != ']') ++at;
            return !done();
        }
        int depth = 0;
        while (!done()) {
            const char c = peek();
            if (c == '"') {
                std::string_view body;
                if (!string(body)) return false;
                continue;
            }
            if (c == '{' || c == '[') ++depth;
            if (c == '}' || c == ']') --depth;
            ++at;
            if (depth == 0) return true;
        }
        return false;
    }
};

/// The kind a top-level key of a JSON object tells, Unknown for keys several kinds may have.
FileKind kindOfKey(std::string_view key) {
    if (key == "stagecraft") return FileKind::Project;
    if (key == "stagecraft_schedule") return FileKind::ScheduleJson;
    if (key == "stagecraft_programs") return FileKind::ProgramsJson;
    // The Chrome trace event format and what profilers (Kineto) put beside the events.
    if (key == "traceEvents" || key == "otherData" || key == "displayTimeUnit" || key == "schemaVersion" ||
        key == "deviceProperties" || key == "distributedInfo" || key == "stackFrames" || key == "samples")
        return FileKind::ChromeTrace;
    return FileKind::Unknown;
}

/// Nsight Systems' JSON export (`nsys export --type json`): its first line is an object with the
/// key "Type" and an event ("NvtxEvent", "CudaEvent", ...) or the string table's "data".
bool looksLikeNsysExport(std::string_view text) {
    const std::string_view line = text.substr(0, std::min<std::size_t>(text.find('\n'), 4096));
    return !line.empty() && line.front() == '{' && line.find("\"Type\"") != std::string_view::npos &&
           (line.find("Event\"") != std::string_view::npos ||
            line.find("\"data\"") != std::string_view::npos);
}

/// A cell of a torch schedule CSV: empty, an action ("0F3", "4SEND_B2", "0REDUCE_GRAD") or a
/// compound one ("(0F3;7B2)OVERLAP_F_B").
bool isTorchCell(std::string_view cell) {
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r'))
        cell.remove_suffix(1);
    if (cell.empty()) return true;
    if (cell.front() == '(') return cell.find(')') != std::string_view::npos;
    std::size_t k = 0;
    auto run = [&](auto accept) {
        const std::size_t from = k;
        while (k < cell.size() && accept(cell[k])) ++k;
        return k > from;
    };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (!run(digit) || !run([](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; })) return false;
    run(digit);
    return k == cell.size();
}

/// A torch.distributed.pipelining schedule CSV: a first line (whole in the head) of actions.
bool looksLikeTorchCsv(std::string_view text) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if ((end == std::string_view::npos && text.size() >= kSniffBytes) ||
        line.find_first_not_of(", \t\r") == std::string_view::npos)
        return false;
    for (std::size_t from = 0;;) {
        const std::size_t comma = line.find(',', from);
        if (!isTorchCell(line.substr(from, comma - from))) return false;
        if (comma == std::string_view::npos) return true;
        from = comma + 1;
    }
}

} // namespace

bool isTraceKind(FileKind kind) {
    return kind == FileKind::ChromeTrace || kind == FileKind::NsysJson || kind == FileKind::Sqlite;
}

FileKind sniffTextKind(std::string_view head) {
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b)
        return FileKind::Gzip;
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16)) return FileKind::Sqlite;
    HeadCursor cursor{head};
    if (head.substr(0, 3) == "\xEF\xBB\xBF") cursor.at = 3;
    if (looksLikeNsysExport(head.substr(cursor.at))) return FileKind::NsysJson;
    if (looksLikeTorchCsv(head.substr(cursor.at))) return FileKind::TorchCsv;
    cursor.skipSpace();
    if (cursor.done()) return FileKind::Unknown;
    // Of Stagecraft's JSON files, only traces are arrays (of events).
    if (cursor.peek() == '[') return FileKind::ChromeTrace;
    if (cursor.peek() != '{') return FileKind::Unknown;
    ++cursor.at;
    for (;;) {
        cursor.skipSpace();
        if (cursor.done() || cursor.peek() != '"') return FileKind::Unknown;
        std::string_view key;
        if (!cursor.string(key)) return FileKind::Unknown;
        if (const FileKind kind = kindOfKey(key); kind != FileKind::Unknown) return kind;
        cursor.skipSpace();
        if (cursor.done() || cursor.peek() != ':') return FileKind::Unknown;
        ++cursor.at;
        if (!cursor.skipValue()) return FileKind::Unknown;
        cursor.skipSpace();
        if (cursor.done() || cursor.peek() != ',') return FileKind::Unknown;
        ++cursor.at;
    }
}

FileKind sniffFileKind(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return FileKind::Unknown;
    std::vector<char> head(kSniffBytes);
    in.read(head.data(), std::streamsize(head.size()));
    return sniffTextKind(std::string_view(head.data(), std::size_t(in.gcount())));
}

std::string fileKindName(FileKind kind) {
    switch (kind) {
    case FileKind::Project:
        return "a Stagecraft project";
    case FileKind::ScheduleJson:
        return "a Stagecraft schedule file";
    case FileKind::ProgramsJson:
        return "a lowered-programs file (stagecraft_programs)";
    case FileKind::ChromeTrace:
        return "a Chrome trace";
    case FileKind::NsysJson:
        return "an Nsight Systems JSON export";
    case FileKind::Sqlite:
        return "an SQLite database (an Nsight Systems export?)";
    case FileKind::TorchCsv:
        return "a torch.distributed.pipelining schedule CSV";
    case FileKind::Gzip:
        return "a gzip-compressed file";
    case FileKind::Unknown:
        break;
    }
    return "a file of unknown kind";
}

std::string fileKindReaders(FileKind kind) {
    switch (kind) {
    case FileKind::Project:
        return "projects are read by every stagecraft-cli command (show, simulate, export, validate, ...) "
               "and "
               "the desktop application";
    case FileKind::ScheduleJson:
        return "schedule files are read by stagecraft-cli validate, show, simulate, export, lower and "
               "overlay";
    case FileKind::ProgramsJson:
        return "lowered programs are written by `stagecraft-cli lower -o FILE.json` for runtimes";
    case FileKind::ChromeTrace:
    case FileKind::NsysJson:
    case FileKind::Sqlite:
        return "traces are read by `stagecraft-cli overlay PROJECT TRACE`, `stagecraft-cli export --trace "
               "TRACE` and the desktop application's trace overlay";
    case FileKind::TorchCsv:
        return "schedule CSVs are read by stagecraft-cli validate, show, simulate, export, lower and "
               "overlay, "
               "and the desktop application's File > Open";
    case FileKind::Gzip:
        return "decompress it first (gunzip)";
    case FileKind::Unknown:
        break;
    }
    return "";
}

void requireFileKind(const std::filesystem::path& path, FileKind expected, const std::string& wanted) {
    const FileKind kind = sniffFileKind(path);
    if (kind == FileKind::Unknown || kind == expected) return;
    throw Error("io.kind", "'" + path.string() + "' is " + fileKindName(kind) + ", not " + wanted + ": " +
                               fileKindReaders(kind));
}

} // namespace stagecraft
