#include "file_kind.h"

#include "error.h"

#include <algorithm>
#include <fstream>

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

std::string fileHead(const std::filesystem::path& path, std::size_t bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::string head(bytes, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    return head;
}

FileKind sniffFileKind(const std::filesystem::path& path) {
    return sniffTextKind(fileHead(path));
}

std::string sqliteCutShort(std::string_view head, std::uintmax_t fileBytes) {
    // The file format's header (sqlite.org/fileformat.html): the page size at offset 16 (1 means
    // 65536), the database size in pages at 28, valid when the change counter at 24 equals the
    // "version-valid-for" number at 92.
    if (head.substr(0, 16) != std::string_view("SQLite format 3\0", 16)) return "";
    if (head.size() < 100)
        return "the file is cut short: " + std::to_string(fileBytes) +
               " bytes, not even the 100-byte header of an SQLite database (a copy that did not finish?)";
    auto byte = [&](std::size_t k) { return std::uint32_t(static_cast<unsigned char>(head[k])); };
    auto u32 = [&](std::size_t k) {
        return byte(k) << 24 | byte(k + 1) << 16 | byte(k + 2) << 8 | byte(k + 3);
    };
    const std::uint32_t pageSize = (byte(16) << 8 | byte(17)) == 1 ? 65536 : (byte(16) << 8 | byte(17));
    const std::uint32_t pages = u32(28);
    if (pageSize < 512 || pages == 0 || u32(24) != u32(92)) return "";
    const std::uintmax_t expected = std::uintmax_t(pageSize) * pages;
    if (fileBytes >= expected) return "";
    return "the file is cut short: its header counts " + std::to_string(pages) + " pages of " +
           std::to_string(pageSize) + " bytes (" + std::to_string(expected) + " bytes), the file has " +
           std::to_string(fileBytes) + " (a copy that did not finish?)";
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
