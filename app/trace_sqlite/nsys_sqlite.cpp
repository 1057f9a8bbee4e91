#include "nsys_sqlite.h"

#include "error.h"
#include "io/nsys_trace.h"

#include <memory>
#include <sqlite3.h>
#include <string>

namespace stagecraft {

namespace {

constexpr int kNvtxPushPopRange = 59;
constexpr int kNvtxStartEndRange = 60;

[[noreturn]] void fail(const std::string& source, const std::string& message) {
    throw ParseError("trace.sqlite", source, 0, 0, message);
}

struct CloseDb {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalize {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

bool hasColumn(sqlite3* db, const char* table, const char* column) {
    sqlite3_stmt* raw = nullptr;
    const std::string sql = std::string("PRAGMA table_info(") + table + ")";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) return false;
    std::unique_ptr<sqlite3_stmt, Finalize> stmt(raw);
    while (sqlite3_step(raw) == SQLITE_ROW) {
        const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(raw, 1));
        if (name && std::string(name) == column) return true;
    }
    return false;
}

} // namespace

std::vector<RankTrace> readNsysSqlite(const std::filesystem::path& path) {
    const std::string source = path.string();
    sqlite3* raw = nullptr;
    const int opened = sqlite3_open_v2(source.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    std::unique_ptr<sqlite3, CloseDb> db(raw);
    if (opened != SQLITE_OK) fail(source, std::string("cannot open as SQLite: ") + sqlite3_errstr(opened));
    if (!hasColumn(raw, "NVTX_EVENTS", "start"))
        fail(source, "no NVTX_EVENTS table: not an Nsight Systems export, or the run was traced without NVTX "
                     "(nsys profile --trace=nvtx,...)");
    const bool textIds = hasColumn(raw, "NVTX_EVENTS", "textId") && hasColumn(raw, "StringIds", "value");
    const std::string sql =
        textIds
            ? "SELECT e.start, e.end, e.eventType, coalesce(e.text, s.value), e.globalTid FROM NVTX_EVENTS e "
              "LEFT JOIN StringIds s ON e.textId = s.id WHERE e.eventType IN (59, 60) ORDER BY e.rowid"
            : "SELECT start, end, eventType, text, globalTid FROM NVTX_EVENTS WHERE eventType IN (59, 60) "
              "ORDER BY rowid";
    sqlite3_stmt* rawStmt = nullptr;
    if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &rawStmt, nullptr) != SQLITE_OK)
        fail(source, std::string("NVTX_EVENTS cannot be read: ") + sqlite3_errmsg(raw));
    std::unique_ptr<sqlite3_stmt, Finalize> stmt(rawStmt);
    std::vector<NvtxRange> ranges;
    std::uint32_t row = 0;
    int step = SQLITE_ROW;
    while ((step = sqlite3_step(rawStmt)) == SQLITE_ROW) {
        NvtxRange r;
        r.event = row++;
        const int type = sqlite3_column_int(rawStmt, 2);
        if (type != kNvtxPushPopRange && type != kNvtxStartEndRange) continue;
        r.startNs = sqlite3_column_int64(rawStmt, 0);
        // An open range (no end) cannot be timed.
        r.endNs = sqlite3_column_type(rawStmt, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(rawStmt, 1);
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(rawStmt, 3));
        if (text) r.name = text;
        r.globalTid = sqlite3_column_int64(rawStmt, 4);
        ranges.push_back(std::move(r));
    }
    if (step != SQLITE_DONE) fail(source, std::string("reading NVTX_EVENTS failed: ") + sqlite3_errmsg(raw));
    return nvtxRangesToRanks(ranges, source);
}

} // namespace stagecraft
