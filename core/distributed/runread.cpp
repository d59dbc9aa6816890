#include "core/distributed/runread.h"

#include <algorithm>
#include <filesystem>
#include <future>
#include <thread>

#include "core/analysis/breakdown.h"
#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/distributed/ranksummary.h"
#include "core/trace/profilereader.h"

namespace fs = std::filesystem;

namespace reach {

namespace {

struct RankRead {
    RankTrace trace;
    RankCategories categories;
};

RankRead readRank(const std::string& file, const RuleSet& rules) {
    RankRead r;
    if (looksLikeRankSummary(file)) {
        RankSummary s = readRankSummary(file);
        r.trace = std::move(s.trace);
        r.categories = {s.gpuTimeUs, s.categoryUs, s.rulesName, s.rulesHash, true};
        return r;
    }
    r.trace = scanRank(file);
    const Breakdown b = computeBreakdown(readProfile(file), rules);
    r.categories = {b.gpuTimeUs, b.categoryUs, b.rulesName, b.rulesHash, false};
    return r;
}

}  // namespace

std::vector<std::string> runFiles(const std::vector<std::string>& inputs) {
    std::vector<std::string> files;
    for (const std::string& in : inputs) {
        std::error_code ec;
        if (!fs::is_directory(in, ec)) {
            files.push_back(in);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(in, ec)) {
            const std::string name = e.path().filename().string();
            const bool trace = name.ends_with(".json") || name.ends_with(".json.gz");
            if (trace && e.is_regular_file(ec))
                found.push_back(e.path().string());
        }
        if (ec)
            throw InputError(in, "", "a readable folder of rank traces (" + ec.message() + ")");
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

DistributedRun readRun(const std::vector<std::string>& files, const RuleSet& rules,
                       unsigned threads) {
    const size_t width =
        threads ? threads : std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    std::vector<RankRead> reads(files.size());
    for (size_t begin = 0; begin < files.size(); begin += width) {
        std::vector<std::future<RankRead>> work;
        for (size_t i = begin; i < std::min(files.size(), begin + width); ++i)
            work.push_back(std::async(std::launch::async,
                                      [&files, &rules, i] { return readRank(files[i], rules); }));
        for (size_t k = 0; k < work.size(); ++k)
            reads[begin + k] = work[k].get();  // rethrows the first bad file's InputError
    }
    std::vector<RankTrace> traces;
    for (const RankRead& r : reads)
        traces.push_back(r.trace);
    DistributedRun out;
    out.run = analyzeRun(std::move(traces));
    for (const RankTrace& t : out.run.ranks)
        for (const RankRead& r : reads)
            if (r.trace.path == t.path && r.trace.rank == t.rank) {
                out.categories.push_back(r.categories);
                break;
            }
    // A summary classified under other rules than the rest: its shares are not comparable.
    for (size_t r = 0; r < out.categories.size(); ++r) {
        const RankCategories& c = out.categories[r];
        if (c.fromSummary && c.rulesHash != rules.hash())
            out.run.warnings.push_back(out.run.ranks[r].path + " was classified under rules '" +
                                       c.rulesName + "' (" + c.rulesHash.substr(0, 12) +
                                       "), not the rules '" + rules.name() +
                                       "' of this reduce: its shares are theirs");
    }
    if (!out.categories.empty()) {
        const RankCategories& c = out.categories[out.run.critical];
        const double addressable = c.categoryUs[size_t(Category::Addressable)];
        const double rest = c.gpuTimeUs - out.run.communication[out.run.critical].waitUs;
        out.addressableShare = c.gpuTimeUs > 0 ? addressable / c.gpuTimeUs : 0;
        out.addressableShareWaitingOut = rest > 0 ? addressable / rest : 0;
    }
    return out;
}

}  // namespace reach
