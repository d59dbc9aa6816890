// reach-cli breakdown RANK0 RANK1 ... --ranks [--rules R.json] [--json]: a distributed run's
// ranks side by side (core/distributed, docs/distributed.md).
#include "app/cli/clibreakdownranks.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <future>
#include <thread>

#include "app/args/cliargs.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"
#include "core/base/outputguard.h"
#include "core/base/wholefile.h"
#include "core/distributed/ranksummary.h"
#include "core/distributed/runanalysis.h"
#include "core/trace/profilereader.h"

namespace fs = std::filesystem;

namespace reach::cli {

namespace {

// The files of a run: each given file, and a folder's traces (.json, .json.gz) by name.
std::vector<std::string> rankFiles(const std::vector<std::string>& inputs) {
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
            const bool trace = name.size() > 5 && (name.ends_with(".json") ||
                                                  name.ends_with(".json.gz"));
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

struct RankRead {
    RankTrace trace;
    Breakdown breakdown;
    bool summary = false;  // read from a rank summary (the map's), not a trace
};

// A rank summary's four categories as the breakdown the run's table prints.
Breakdown breakdownOfSummary(const RankSummary& s) {
    Breakdown b;
    b.workload = s.trace.path;
    b.source = s.trace.path;
    b.gpuTimeUs = s.gpuTimeUs;
    b.categoryUs = s.categoryUs;
    b.rulesName = s.rulesName;
    b.rulesHash = s.rulesHash;
    return b;
}

// One rank: a summary the map wrote, else a trace, scanned for the run and read by the profile
// reader for its breakdown.
RankRead readRank(const std::string& file, const RuleSet& rules) {
    if (looksLikeRankSummary(file)) {
        RankSummary s = readRankSummary(file);
        RankRead r{std::move(s.trace), {}};
        r.breakdown = breakdownOfSummary(s);
        r.summary = true;
        return r;
    }
    return {scanRank(file), computeBreakdown(readProfile(file), rules), false};
}

// Each rank on its own thread, a few at a time: ranks are independent until the run is put
// together.
std::vector<RankRead> readRanks(const std::vector<std::string>& files, const RuleSet& rules) {
    const size_t width = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    std::vector<RankRead> out(files.size());
    for (size_t begin = 0; begin < files.size(); begin += width) {
        std::vector<std::future<RankRead>> work;
        for (size_t i = begin; i < std::min(files.size(), begin + width); ++i)
            work.push_back(std::async(std::launch::async,
                                      [&files, &rules, i] { return readRank(files[i], rules); }));
        for (size_t k = 0; k < work.size(); ++k)
            out[begin + k] = work[k].get();  // rethrows the first bad file's InputError
    }
    return out;
}

const Breakdown& breakdownOf(const std::vector<RankRead>& reads, const RankTrace& rank) {
    for (const RankRead& r : reads)
        if (r.trace.path == rank.path)
            return r.breakdown;
    throw std::logic_error("a rank without its breakdown");
}

double addressableUs(const Breakdown& b) {
    return b.categoryUs[static_cast<size_t>(Category::Addressable)];
}

// The addressable share on the critical rank with its waiting taken out, and why that rank.
struct Corrected {
    double plainShare = 0;      // addressable / GPU time on the critical rank
    double correctedShare = 0;  // addressable / (GPU time - its wait)
};

Corrected correctedOf(const RunAnalysis& run, const Breakdown& b) {
    const double wait = run.communication[run.critical].waitUs;
    Corrected c;
    c.plainShare = b.gpuTimeUs > 0 ? addressableUs(b) / b.gpuTimeUs : 0;
    const double rest = b.gpuTimeUs - wait;
    c.correctedShare = rest > 0 ? addressableUs(b) / rest : 0;
    return c;
}

nlohmann::json toJson(const RunAnalysis& run, const std::vector<RankRead>& reads) {
    using nlohmann::json;
    json ranks = json::array();
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const RankTrace& t = run.ranks[r];
        const Breakdown& b = breakdownOf(reads, t);
        const RankCommunication& c = run.communication[r];
        json shares = json::object();
        for (Category cat : kCategories)
            shares[std::string(categoryKey(cat))] = b.share(cat);
        ranks.push_back({{"rank", t.rank},
                         {"rank_from", t.rankFrom},
                         {"file", t.path},
                         {"world_size", t.worldSize},
                         {"gpu_time_us", b.gpuTimeUs},
                         {"shares", shares},
                         {"collectives", t.collectives.size()},
                         {"collective_us", c.collectiveUs},
                         {"transfer_us", c.transferUs},
                         {"wait_us", c.waitUs},
                         {"overlap_us", c.overlapUs},
                         {"compute_us", c.computeUs},
                         {"last_arrivals", c.lastArrivals},
                         {"straggler_cost_us", c.stragglerCostUs},
                         {"clock_offset_us", run.offsets[r].offsetUs},
                         {"clock_offset_uncertainty_us", run.offsets[r].uncertaintyUs},
                         {"clock_offset_samples", run.offsets[r].samples}});
    }
    json matched = json::array();
    for (const MatchedCollective& m : run.matched)
        matched.push_back({{"group", m.group},
                           {"op", m.op},
                           {"index", m.index},
                           {"bytes", m.bytes >= 0 ? json(m.bytes) : json()},
                           {"arrival_us", m.arrival},
                           {"leave_us", m.leave},
                           {"wait_us", m.waitUs},
                           {"transfer_us", m.transferUs},
                           {"straggler", run.ranks[m.straggler].rank},
                           {"skew_us", m.skewUs}});
    json unmatched = json::array();
    for (const UnmatchedCollective& u : run.unmatched)
        unmatched.push_back({{"rank", run.ranks[u.rank].rank},
                             {"group", u.group},
                             {"op", u.op},
                             {"count", u.count},
                             {"why", u.why}});
    const Corrected c = correctedOf(run, breakdownOf(reads, run.ranks[run.critical]));
    return {{"schema", "reach.distributed_breakdown"},
            {"schema_version", 1},
            {"ranks", ranks},
            {"matched", matched},
            {"unmatched", unmatched},
            {"critical_rank", run.ranks[run.critical].rank},
            {"addressable_share_on_critical_rank", c.plainShare},
            {"addressable_share_waiting_taken_out", c.correctedShare},
            {"warnings", run.warnings}};
}

void printRun(std::ostream& os, const RunAnalysis& run, const std::vector<RankRead>& reads) {
    os << "distributed run: " << run.ranks.size() << " ranks, " << run.matched.size()
       << " collectives matched, " << run.unmatched.size() << " listed unmatched\n\n";
    TextTable table({"rank", "GPU time", "library", "addressable", "overhead", "unclassified",
                     "transfer", "wait", "overlap", "last in", "clock offset"});
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const Breakdown& b = breakdownOf(reads, run.ranks[r]);
        const RankCommunication& c = run.communication[r];
        const ClockOffset& o = run.offsets[r];
        table.addRow({std::to_string(run.ranks[r].rank) + (r == run.critical ? " *" : ""),
                      duration(b.gpuTimeUs), percent(b.share(Category::LibraryOptimized)),
                      percent(b.share(Category::Addressable)), percent(b.share(Category::Overhead)),
                      percent(b.share(Category::Unclassified)), duration(c.transferUs),
                      duration(c.waitUs), duration(c.overlapUs),
                      std::to_string(c.lastArrivals) + " (" + duration(c.stragglerCostUs) + ")",
                      r == 0 ? std::string("reference")
                             : (o.samples ? duration(o.offsetUs) + " +- " +
                                                duration(o.uncertaintyUs) + " (" +
                                                std::to_string(o.samples) + ")"
                                          : std::string("unknown: nothing matched"))});
    }
    os << table.render();
    const Breakdown& cb = breakdownOf(reads, run.ranks[run.critical]);
    const Corrected c = correctedOf(run, cb);
    os << "\n* critical rank " << run.ranks[run.critical].rank
       << ": it waits least (" << duration(run.communication[run.critical].waitUs)
       << "): the others wait for it, so a kernel made faster there shortens the run; made "
          "faster on another rank, it buys that rank more waiting\n";
    os << "  addressable share on it " << percent(c.plainShare, 2)
       << ", with its waiting taken out " << percent(c.correctedShare, 2) << "\n";
    if (!run.unmatched.empty()) {
        os << "\nunmatched:\n";
        for (const UnmatchedCollective& u : run.unmatched)
            os << "  rank " << run.ranks[u.rank].rank << " " << reach::escapeControls(u.op)
               << (u.group.empty() ? "" : " (" + reach::escapeControls(u.group) + ")") << " x"
               << u.count << ": " << reach::escapeControls(u.why) << "\n";
    }
    for (const std::string& w : run.warnings)
        os << "warning: " << w << "\n";
}

}  // namespace

int runRankSummary(const CliArgs& args, CliIo& io) {
    const std::vector<std::string>& inputs = args.positionals();
    if (inputs.size() != 1)
        throw UsageError("--rank-summary OUT: one rank's trace (the map of a run: "
                         "docs/distributed.md)");
    const std::string out = *args.value("--rank-summary");
    OutputGuard guard;
    guard.addInput(inputs[0]);
    guard.checkNamed(out);
    const RuleSet rules = loadRules(args.value("--rules"));
    RankSummary s;
    s.trace = scanRank(inputs[0]);
    const Breakdown b = computeBreakdown(readProfile(inputs[0]), rules);
    s.gpuTimeUs = b.gpuTimeUs;
    s.categoryUs = b.categoryUs;
    s.rulesName = b.rulesName;
    s.rulesHash = b.rulesHash;
    writeWholeFile(out, rankSummaryText(s), "a writable file for the rank summary");
    io.out << "rank " << s.trace.rank << " of " << reach::escapeControls(inputs[0]) << ": "
           << s.trace.collectives.size() << " collectives -> " << reach::escapeControls(out)
           << "\n";
    return kExitOk;
}

int runBreakdownRanks(const CliArgs& args, CliIo& io) {
    const std::vector<std::string> files = rankFiles(args.positionals());
    if (files.size() < 2)
        throw UsageError("--ranks: the traces of one run, two or more (files or a folder)");
    const RuleSet rules = loadRules(args.value("--rules"));
    std::vector<RankRead> reads = readRanks(files, rules);
    std::vector<RankTrace> traces;
    for (const RankRead& r : reads)
        traces.push_back(r.trace);
    RunAnalysis run = analyzeRun(std::move(traces));
    // A summary classified under other rules than the rest: its shares are not comparable.
    for (const RankRead& r : reads)
        if (r.summary && r.breakdown.rulesHash != rules.hash()) {
            run.warnings.push_back(r.trace.path + " was classified under rules '" +
                                   r.breakdown.rulesName + "' (" +
                                   r.breakdown.rulesHash.substr(0, 12) + "), not the rules '" +
                                   rules.name() + "' of this reduce: its shares are theirs");
        }
    if (args.flag("--json"))
        io.out << reach::dumpJson(toJson(run, reads)) << "\n";
    else
        printRun(io.out, run, reads);
    return kExitOk;
}

}  // namespace reach::cli
