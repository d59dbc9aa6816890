#include "core/trace/profilereader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/base/inputerror.h"
#include "core/trace/bytesource.h"
#include "core/trace/kinetoreader.h"
#include "core/trace/nsysreader.h"

namespace reach {

namespace {

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Workload readProfile(const std::string& path, const ProgressFn& progress, std::stop_token stop,
                     const KinetoOptions& kineto) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        throw InputError(path, "", "is a directory, expected a profile file");
    // A device or a FIFO (also behind a symbolic link) would be read forever or block.
    if (!S_ISREG(st.st_mode)) {
        throw InputError(path, "",
                         "is not a regular file (a device, FIFO or socket), expected a profile "
                         "file");
    }
    if (st.st_size == 0)
        throw InputError(path, "byte 0", "the file is empty, expected a profile");

    std::string head = ByteSource::peek(path, 16);
    Workload w;
    if (head.rfind("SQLite format 3", 0) == 0) {
        w = readNsysSqlite(path, progress, stop);
    } else {
        size_t i = 0;
        while (i < head.size() && std::strchr(" \t\r\n", head[i]))
            ++i;
        bool gzip = head.size() >= 2 && uint8_t(head[0]) == 0x1f && uint8_t(head[1]) == 0x8b;
        bool json = i < head.size() && (head[i] == '{' || head[i] == '[');
        if (!gzip && !json) {
            throw InputError(path, "byte " + std::to_string(i),
                             "expected a PyTorch profiler trace (JSON '{' or gzip) or an Nsight "
                             "Systems SQLite export; this file is neither");
        }
        ByteSource source(path, stop);
        w = readKineto(source, progress, stop, kineto);
    }
    // A JSON list of anything is a valid Chrome trace of nothing: a leaderboard dump or a
    // record file given here would otherwise be a workload of 0 us (and a breakdown of it).
    if (w.eventCount == 0)
        throw InputError(path, "",
                         "no GPU kernel, memcpy or memset event: expected a profile of GPU "
                         "work (a PyTorch profiler trace with CUDA activities, or an "
                         "Nsight Systems export; evaluation records are read by "
                         "`reach-cli speedups`)");
    w.name = workloadNameFromPath(path);
    w.source = path;
    return w;
}

std::string workloadNameFromPath(const std::string& path) {
    std::string name = path;
    size_t slash = name.find_last_of('/');
    if (slash != std::string::npos)
        name = name.substr(slash + 1);
    // Strip in the order they stack: x.pt.trace.json.gz
    for (std::string_view ext : {".gz", ".json", ".pt.trace", ".sqlite"}) {
        if (endsWith(name, ext) && name.size() > ext.size())
            name.resize(name.size() - ext.size());
    }
    return name;
}

}  // namespace reach
