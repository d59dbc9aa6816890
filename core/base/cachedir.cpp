#include "core/base/cachedir.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/base/inputerror.h"

namespace reach {

std::string homeDirectory() {
    if (const char* h = std::getenv("HOME"); h && *h)
        return h;
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir)
        return pw->pw_dir;
    return "";
}

void requirePrivateDir(const std::string& dir, const std::string& what,
                       const std::string& variable) {
    std::error_code ec;
    std::filesystem::path p(dir);
    if (!std::filesystem::exists(p, ec)) {
        std::filesystem::create_directories(p.parent_path(), ec);
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            throw InputError(
                dir, what,
                std::string("a directory Reach can create (") + std::strerror(errno) + ")");
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw InputError(dir, what, "a directory (not a link or a file)");
    if (st.st_uid != getuid())
        throw InputError(
            dir, what,
            "a directory owned by you (it belongs to uid " + std::to_string(st.st_uid) + ")");
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        throw InputError(dir, what,
                         "a directory only you can write (chmod go-w it, or choose another "
                         "with " +
                             variable + ")");
}

std::string defaultCacheDir(const std::string& what) {
    const std::string dir = cacheRoot() + "/" + what;
    requirePrivateDir(dir);
    return dir;
}

std::string cacheRootPath() {
    if (const char* x = std::getenv("REACH_CACHE_DIR"); x && *x)
        return x;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/reach";
    const std::string home = homeDirectory();
    return home.empty() ? home : home + "/.cache/reach";
}

std::string cacheRoot() {
    const std::string root = cacheRootPath();
    if (root.empty())
        throw InputError("the compile cache", "directory",
                         "a home directory or REACH_CACHE_DIR (Reach never caches compiled "
                         "code in a shared directory)");
    requirePrivateDir(root);
    return root;
}

}  // namespace reach
