#include "core/distributed/runread.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <thread>

#include "core/analysis/breakdown.h"
#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/base/parallel.h"
#include "core/distributed/ranksummary.h"
#include "core/distributed/readbudget.h"
#include "core/trace/profilereader.h"

namespace fs = std::filesystem;

namespace reach {

RankReading readRank(const std::string& file, const RuleSet& rules, int parseThreads) {
    RankReading r;
    if (looksLikeRankSummary(file)) {
        RankSummary s = readRankSummary(file);
        r.trace = std::move(s.trace);
        r.categories = {s.gpuTimeUs, s.categoryUs, s.rulesName, s.rulesHash, true};
        return r;
    }
    KinetoOptions options;
    options.rankFacts = true;
    options.threads = parseThreads;
    const Workload w = readProfile(file, {}, {}, options);  // the one pass over the file
    r.trace = rankTraceOf(file, w);
    const Breakdown b = computeBreakdown(w, rules);
    r.categories = {b.gpuTimeUs, b.categoryUs, b.rulesName, b.rulesHash, false};
    return r;
}

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
                       unsigned threads, uint64_t memoryBudget) {
    const int cpus = cpusAvailable();
    const size_t width =
        std::min<size_t>(files.size(), threads ? threads : size_t(std::clamp(cpus, 1, 8)));
    std::vector<RankReading> reads(files.size());
    std::vector<std::exception_ptr> errors(files.size());
    ReadBudget budget(memoryBudget);
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        for (size_t i = next++; i < files.size() && !failed; i = next++) {
            const uint64_t bytes = rankReadingBytes(files[i]);
            budget.acquire(bytes);
            // The cores shared by the ranks read now: each rank's reader parses on its share
            // (the result is the same bits whatever the number).
            const int share = cpus / std::max(1, budget.inFlight());
            try {
                reads[i] = readRank(files[i], rules, share >= 4 ? std::min(share - 2, 8) : 0);
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true;
            }
            budget.release(bytes);
        }
    };
    {
        std::vector<std::jthread> pool;
        for (size_t t = 0; t < width; ++t)
            pool.emplace_back(work);
    }
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);  // the first bad file in the order given
    std::vector<RankTrace> traces;
    for (const RankReading& r : reads)
        traces.push_back(r.trace);
    DistributedRun out;
    out.run = analyzeRun(std::move(traces));
    for (const RankTrace& t : out.run.ranks)
        for (const RankReading& r : reads)
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
