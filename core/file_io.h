#pragma once
// Reading and writing whole files. Every file Stagecraft writes goes through writeFileAtomically:
// a crash or a full disk never leaves a half-written project, schedule or trace behind.

#include "size_limits.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace stagecraft {

/// The whole file as bytes. Throws Error("io.read") naming the path and the OS reason.
std::string readTextFile(const std::filesystem::path& path);

/// Write `content` to a temporary file next to `path`, flush it to disk, then rename it over
/// `path`. Throws Error("io.write") naming the path and the OS reason; the old file is intact.
/// The file names of a list of paths ("," or ", " between them, as a trace's files or a fit's
/// source are kept) without their folders, as notes and captions name them; cut short past 400
/// characters.
std::string fileNamesOf(const std::string& paths);

void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

} // namespace stagecraft
