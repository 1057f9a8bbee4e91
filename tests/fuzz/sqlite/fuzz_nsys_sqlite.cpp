// Fuzz harness of the Nsight Systems SQLite export reader (app/trace_sqlite): the bytes are
// written to a file and opened as a database; SQLite reports corrupt files, the reader refuses them.
#include "../fuzz_entry.h"
#include "error.h"
#include "io/measured_run.h"
#include "nsys_sqlite.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

STAGECRAFT_FUZZ_TARGET(nsys_sqlite) {
    using namespace stagecraft;
    const auto path = std::filesystem::temp_directory_path() /
                      ("stagecraft-fuzz-" + std::to_string(::getpid()) + ".sqlite");
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    try {
        (void)assembleMeasuredRun(readNsysSqlite(path));
    } catch (const Error&) {
    }
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
}
