#include "file_io.h"

#include "error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <unistd.h>

namespace stagecraft {

namespace {
std::string osReason() {
    return std::strerror(errno);
}
} // namespace

std::string readTextFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("io.read", "cannot read '" + path.string() + "': it is a directory");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("io.read", "cannot read '" + path.string() + "': " + osReason());
    std::string content;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string reason = osReason();
            ::close(fd);
            throw Error("io.read", "cannot read '" + path.string() + "': " + reason);
        }
        if (n == 0) break;
        content.append(buffer, std::size_t(n));
        if (content.size() > kMaxReadBytes) {
            ::close(fd);
            throw Error("io.read", "cannot read '" + path.string() + "': larger than " +
                                       std::to_string(kMaxReadBytes >> 20) + " MiB");
        }
    }
    ::close(fd);
    return content;
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path dir =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::random_device entropy;
    const std::filesystem::path temp = dir / ("." + path.filename().string() + ".tmp-" +
                                              std::to_string(::getpid()) + "-" + std::to_string(entropy()));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw Error("io.write", "cannot write '" + path.string() + "': " + osReason());
    auto fail = [&](const std::string& reason) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw Error("io.write", "cannot write '" + path.string() + "': " + reason);
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(osReason());
        }
        written += std::size_t(n);
    }
    if (::fsync(fd) != 0) fail(osReason());
    if (::close(fd) != 0) {
        ::unlink(temp.c_str());
        throw Error("io.write", "cannot write '" + path.string() + "': " + osReason());
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string reason = osReason();
        ::unlink(temp.c_str());
        throw Error("io.write", "cannot write '" + path.string() + "': " + reason);
    }
}

std::string fileNamesOf(const std::string& paths) {
    std::string names;
    std::size_t from = 0;
    while (from <= paths.size()) {
        const std::size_t comma = paths.find(',', from);
        std::string path = paths.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        path.erase(0, path.find_first_not_of(' '));
        names += (names.empty() ? "" : ", ") + std::filesystem::path(path).filename().string();
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    constexpr std::size_t kMaxNames = 400;
    return names.size() > kMaxNames ? names.substr(0, kMaxNames) + "..." : names;
}

} // namespace stagecraft
