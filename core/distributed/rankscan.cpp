#include "core/distributed/rankscan.h"

#include <filesystem>
#include <regex>

#include "core/base/inputerror.h"
#include "core/trace/profilereader.h"

namespace reach {

RankTrace rankTraceOf(const std::string& path, const Workload& w) {
    if (!w.rank)
        throw InputError(path, "",
                         "a PyTorch profiler (Kineto) trace: a distributed run's ranks are read "
                         "from those (this is " +
                             (w.format.empty() ? std::string("another format") : w.format) + ")");
    const RankFacts& f = *w.rank;
    RankTrace r;
    r.path = path;
    r.rank = f.rank;
    r.rankFrom = f.rank >= 0 ? "distributedInfo" : "";
    r.worldSize = f.worldSize;
    r.backend = f.backend;
    r.collectiveSpans = f.collectiveSpans;
    r.computeSpans = spanIntersection(f.computeSpans, f.collectiveSpans);
    r.computeUs = spanLength(f.computeSpans);
    r.collectives = f.collectives;
    r.gpuUs = w.gpuTimeUs;
    if (r.rank < 0) {
        r.rank = rankFromFileName(path);
        if (r.rank >= 0)
            r.rankFrom = "file name";
    }
    return r;
}

RankTrace scanRank(const std::string& path) {
    KinetoOptions options;
    options.rankFacts = true;
    return rankTraceOf(path, readProfile(path, {}, {}, options));
}

int rankFromFileName(const std::string& path) {
    static const std::regex pattern(R"((?:^|[^A-Za-z])rank[-_]?(\d{1,7})(?:[^0-9]|$))",
                                    std::regex::icase);
    const std::string name = std::filesystem::path(path).filename().string();
    std::smatch m;
    if (!std::regex_search(name, m, pattern))
        return -1;
    return std::stoi(m[1].str());
}

}  // namespace reach
