// reach-cli breakdown RANK0 RANK1 ... --ranks [--rules R.json] [--jobs N] [--memory MIB] [--json]:
// a distributed run's ranks side by side; breakdown RANK --rank-summary OUT: one rank's summary
// for a later reduce (core/distributed, docs/distributed.md).
#include "app/cli/clibreakdownranks.h"

#include <nlohmann/json.hpp>

#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/base/category.h"
#include "core/base/outputguard.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"
#include "core/distributed/ranksummary.h"
#include "core/distributed/runread.h"
#include "core/trace/profilereader.h"

namespace reach::cli {

namespace {

nlohmann::json toJson(const DistributedRun& d) {
    using nlohmann::json;
    const RunAnalysis& run = d.run;
    json ranks = json::array();
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const RankTrace& t = run.ranks[r];
        const RankCategories& cat = d.categories[r];
        const RankCommunication& c = run.communication[r];
        json shares = json::object();
        for (Category k : kCategories)
            shares[std::string(categoryKey(k))] = cat.share(size_t(k));
        ranks.push_back({{"rank", t.rank},
                         {"rank_from", t.rankFrom},
                         {"file", t.path},
                         {"world_size", t.worldSize},
                         {"gpu_time_us", cat.gpuTimeUs},
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
    return {{"schema", "reach.distributed_breakdown"},
            {"schema_version", 1},
            {"ranks", ranks},
            {"matched", matched},
            {"unmatched", unmatched},
            {"critical_rank", run.ranks[run.critical].rank},
            {"addressable_share_on_critical_rank", d.addressableShare},
            {"addressable_share_waiting_taken_out", d.addressableShareWaitingOut},
            {"warnings", run.warnings}};
}

std::string offsetText(const ClockOffset& o, bool reference) {
    if (reference)
        return "reference";
    if (o.samples == 0)
        return "unknown: nothing matched";
    return duration(o.offsetUs) + " +- " + duration(o.uncertaintyUs) + " (" +
           std::to_string(o.samples) + ")";
}

void printRun(std::ostream& os, const DistributedRun& d) {
    const RunAnalysis& run = d.run;
    os << "distributed run: " << run.ranks.size() << " ranks, " << run.matched.size()
       << " collectives matched, " << run.unmatched.size() << " listed unmatched\n\n";
    TextTable table({"rank", "GPU time", "library", "addressable", "overhead", "unclassified",
                     "transfer", "wait", "overlap", "last in", "clock offset"});
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const RankCategories& cat = d.categories[r];
        const RankCommunication& c = run.communication[r];
        table.addRow({std::to_string(run.ranks[r].rank) + (r == run.critical ? " *" : ""),
                      duration(cat.gpuTimeUs),
                      percent(cat.share(size_t(Category::LibraryOptimized))),
                      percent(cat.share(size_t(Category::Addressable))),
                      percent(cat.share(size_t(Category::Overhead))),
                      percent(cat.share(size_t(Category::Unclassified))), duration(c.transferUs),
                      duration(c.waitUs), duration(c.overlapUs),
                      std::to_string(c.lastArrivals) + " (" + duration(c.stragglerCostUs) + ")",
                      offsetText(run.offsets[r], r == 0)});
    }
    os << table.render();
    os << "\n* critical rank " << run.ranks[run.critical].rank << ": it waits least ("
       << duration(run.communication[run.critical].waitUs)
       << "): the others wait for it, so a kernel made faster there shortens the run; made "
          "faster on another rank, it buys that rank more waiting\n";
    os << "  addressable share on it " << percent(d.addressableShare, 2)
       << ", with its waiting taken out " << percent(d.addressableShareWaitingOut, 2) << "\n";
    if (!run.unmatched.empty()) {
        os << "\nunmatched:\n";
        for (const UnmatchedCollective& u : run.unmatched)
            os << "  rank " << run.ranks[u.rank].rank << " " << reach::escapeControls(u.op)
               << (u.group.empty() ? "" : " (" + reach::escapeControls(u.group) + ")") << " x"
               << u.count << ": " << reach::escapeControls(u.why) << "\n";
    }
    for (const std::string& w : run.warnings)
        os << "warning: " << reach::escapeControls(w) << "\n";
}

}  // namespace

int runRankSummary(const CliArgs& args, CliIo& io) {
    const std::vector<std::string>& inputs = args.positionals();
    if (inputs.size() != 1)
        throw UsageError(
            "--rank-summary OUT: one rank's trace (the map of a run: "
            "docs/distributed.md)");
    const std::string out = *args.value("--rank-summary");
    OutputGuard guard;
    guard.addInput(inputs[0]);
    guard.checkNamed(out);
    const RuleSet rules = loadRules(args.value("--rules"));
    RankReading read = readRank(inputs[0], rules);
    if (read.categories.fromSummary)
        throw InputError(inputs[0], "", "a rank's trace (this is already a rank summary)");
    RankSummary s;
    s.trace = std::move(read.trace);
    s.gpuTimeUs = read.categories.gpuTimeUs;
    s.categoryUs = read.categories.categoryUs;
    s.rulesName = read.categories.rulesName;
    s.rulesHash = read.categories.rulesHash;
    writeWholeFile(out, rankSummaryText(s), "a writable file for the rank summary");
    io.out << "rank " << s.trace.rank << " of " << reach::escapeControls(inputs[0]) << ": "
           << s.trace.collectives.size() << " collectives -> " << reach::escapeControls(out)
           << "\n";
    return kExitOk;
}

int runBreakdownRanks(const CliArgs& args, CliIo& io) {
    const std::vector<std::string> files = runFiles(args.positionals());
    if (files.size() < 2)
        throw UsageError("--ranks: the traces of one run, two or more (files or a folder)");
    // --jobs 1 reads one rank at a time: the baseline of the parallel read (docs/distributed.md).
    const auto jobs = args.integer("--jobs", 1, 1024);
    const auto mib = args.integer("--memory", 0, 1 << 24);
    const DistributedRun run =
        readRun(files, loadRules(args.value("--rules")), jobs ? unsigned(*jobs) : 0u,
                mib ? uint64_t(*mib) << 20 : kDefaultRunMemory);
    if (args.flag("--json"))
        io.out << reach::dumpJson(toJson(run)) << "\n";
    else
        printRun(io.out, run);
    return kExitOk;
}

}  // namespace reach::cli
