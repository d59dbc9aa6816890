#include "core/verify/sandbox.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace reach {

std::string findBubblewrap() {
    if (const char* e = std::getenv("REACH_BWRAP"); e && *e)
        return access(e, X_OK) == 0 ? e : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path && *path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/bwrap";
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

std::vector<std::string> sandboxArguments(const SandboxSpec& spec) {
    namespace fs = std::filesystem;
    std::vector<std::string> a = {spec.bwrap,
                                  // The system as it is, read-only; devices as they are (the
                                  // GPU's /dev/nvidia* nodes), a fresh /proc and /tmp.
                                  "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc",
                                  "/proc", "--tmpfs", "/tmp",
                                  // A /dev/shm of its own: the host's is a place to leave files
                                  // for other processes, or to fill the host's memory.
                                  "--tmpfs", "/dev/shm"};
    if (!spec.home.empty() && fs::is_directory(spec.home))
        a.insert(a.end(), {"--tmpfs", spec.home});
    // Binds come after the tmpfs over the home directory, so they show through it.
    auto bind = [&](const char* how, const std::string& p) {
        std::error_code ec;
        const std::string abs = fs::absolute(p, ec).lexically_normal().string();
        if (!abs.empty() && fs::exists(abs, ec))
            a.insert(a.end(), {how, abs, abs});
    };
    for (const std::string& p : spec.readOnlyPaths)
        bind("--ro-bind", p);
    for (const std::string& p : spec.writablePaths)
        bind("--bind", p);
    a.insert(a.end(), {"--unshare-all", "--die-with-parent", "--new-session", "--setenv",
                       "REACH_SANDBOXED", "1", "--"});
    a.insert(a.end(), spec.command.begin(), spec.command.end());
    return a;
}

std::string sandboxUnavailableMessage() {
    return "--sandbox needs bubblewrap (bwrap), which is not installed: `apt install "
           "bubblewrap`, or run reach-verify in a container (docs/security.md)";
}

}  // namespace reach
