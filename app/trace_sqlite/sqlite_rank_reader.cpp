#include "sqlite_rank_reader.h"

#ifdef STAGECRAFT_HAVE_SQLITE
#include "nsys_sqlite.h"
#endif

namespace stagecraft {

RankReader sqliteRankReader() {
#ifdef STAGECRAFT_HAVE_SQLITE
    return &readNsysSqlite;
#else
    return nullptr;
#endif
}

} // namespace stagecraft
