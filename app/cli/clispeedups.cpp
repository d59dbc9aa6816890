// reach-cli speedups [RECORDS...] [--json] [--group-by model|backend|category|level]
//   [--denominator N] [--map FIELD=COLUMN ...] [--baseline FILE ...] [--project P.reach]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"
#include "core/base/textescape.h"
#include "core/project/openplan.h"
#include "core/records/recordprojection.h"
#include "core/records/recordreader.h"
#include "core/records/recordstats.h"
#include "core/records/suspicion.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"

namespace reach::cli {

namespace {

std::string speedupText(const std::optional<double>& v) {
    return v ? fixed(*v, 3) + "x" : "-";
}

// The resamples the intervals drew: fewer than asked for a group whose resamples would pass the
// bootstrap's work bound (core/analysis/statistics.h), said rather than implied.
std::string resamplesText(int asked, const std::vector<RecordStats>& groups) {
    int largest = 0;
    for (const RecordStats& g : groups)
        largest = std::max(largest, g.attempted);
    const int drawn = bootstrapResamples(asked, size_t(largest));
    std::string text = std::to_string(asked) + " resamples";
    if (drawn < asked)
        text += ", " + std::to_string(drawn) + " for the " + std::to_string(largest) +
                " problems of the largest group: the work bound, docs/limits.md";
    return text;
}

// The summary's options from the command line, checked in the order the options are read.
struct SummaryOptions {
    StatsOptions stats;
    GroupBy groupBy = GroupBy::None;
    std::string basis;  // harness, verified or auto
};

SummaryOptions summaryOptionsFrom(const CliArgs& args) {
    SummaryOptions s;
    if (auto g = args.value("--group-by")) {
        auto parsed = groupByFromString(*g);
        if (!parsed)
            throw UsageError("--group-by: expected model, backend, category or level");
        s.groupBy = *parsed;
    }
    if (auto d = args.integer("--denominator", 1, 1000000))
        s.stats.denominator = static_cast<int>(*d);
    if (auto seed = args.integer("--seed", 0, 2147483647))
        s.stats.seed = static_cast<uint64_t>(*seed);
    if (auto r = args.integer("--resamples", 100, 1000000))
        s.stats.resamples = static_cast<int>(*r);
    if (auto w = args.number("--win-threshold", 1.0, 100.0))
        s.stats.winThreshold = *w;
    s.basis = args.flag("--verified-only") ? "verified" : args.value("--basis").value_or("harness");
    if (s.basis != "harness" && s.basis != "verified" && s.basis != "auto")
        throw UsageError("--basis: expected harness, verified or auto");
    return s;
}

RecordReadOptions recordReadOptionsFrom(const CliArgs& args,
                                        const std::vector<std::string>& baselines) {
    RecordReadOptions read;
    read.kernelBench.level = static_cast<int>(args.integer("--level", 1, 3).value_or(1));
    read.kernelBench.model = args.value("--model").value_or("");
    read.kernelBench.backend = args.value("--backend").value_or("");
    read.kernelBench.dtype = args.value("--dtype").value_or("");
    read.kernelBench.categoriesCsv = args.value("--categories").value_or("");
    for (const auto& b : baselines)
        read.kernelBench.baselines.push_back({b});
    read.verifier.model = read.kernelBench.model;
    return read;
}

// The column mapping: a --preset stored in the project, then each --map on top of it; with
// --save-preset, the result is stored under that name.
void applyColumnMapping(const CliArgs& args, const std::vector<std::string>& maps,
                        std::optional<ProjectStore>& store, RecordReadOptions& read) {
    if (auto preset = args.value("--preset")) {
        if (!store)
            throw UsageError("--preset needs --project P.reach (presets live in a project)");
        for (const ColumnMapping& m : mappingPresets(*store)) {
            if (m.name == *preset)
                read.mapping = m;
        }
        if (!read.mapping)
            throw UsageError("no mapping preset named '" + *preset + "' in " +
                             *args.value("--project"));
    }
    if (!maps.empty()) {
        ColumnMapping m = read.mapping.value_or(ColumnMapping{});
        for (const auto& a : maps)
            m.addFromArgument(a, "command line");
        m.validate("command line");
        read.mapping = m;
    }
    if (auto name = args.value("--save-preset")) {
        if (!store || !read.mapping)
            throw UsageError("--save-preset needs --map ... and --project P.reach");
        read.mapping->name = *name;
        saveMappingPreset(*store, *read.mapping);
    }
}

// What the inputs hold. `published` points into `plans`, whose capacity is reserved before the
// first plan is taken so that the pointers stay valid.
struct OpenedRecords {
    std::vector<OpenPlan> plans;
    std::vector<EvalRecord> records;
    // Each set's records apart: unrelated sets are summarized apart, as the GUI shows them
    // (issue 40: the sample's sets were pooled into one "all" row); --pool pools them.
    std::vector<std::pair<std::string, std::vector<EvalRecord>>> sets;
    std::vector<const EvaluationSet*> published;
};

// Records files, folders of reach-verify outputs, .reach projects, published tables; nothing
// (and no --project): the bundled sample's evaluation sets. With --project, each records file
// given is also stored there (one transaction per file: a bad file stores nothing). A project's
// stored denominator is taken into `stats` when none was given.
void openRecordInputs(const std::vector<std::string>& inputs, const RecordReadOptions& read,
                      std::optional<ProjectStore>& store, StatsOptions& stats,
                      OpenedRecords& opened, CliIo& io) {
    OpenOptions open;
    open.records = read;
    // One input at a time: with --project, each file is stored before the next is read, so a bad
    // file stores nothing and the ones before it stay stored.
    opened.plans.reserve(inputs.size() + 1);  // published summaries below point into them
    auto take = [&](OpenPlan plan) {
        opened.plans.push_back(std::move(plan));
        for (const std::string& w : opened.plans.back().warnings)
            io.err << w << "\n";
        for (const EvaluationSet& set : opened.plans.back().evaluations) {
            if (set.published) {
                opened.published.push_back(&set);
                continue;
            }
            if (store && !set.storeId)
                importRecordSet(*store, set.name, set.origin,  // named as the GUI names it
                                detectRecordFormat(set.origin, read), set.records);
            if (set.storeId && !stats.denominator && set.denominator != set.attempted)
                stats.denominator = set.denominator;  // a project's stored denominator
            for (const EvalRecord& r : set.records)
                opened.records.push_back(r);
            if (!set.records.empty())
                opened.sets.emplace_back(set.name, set.records);
        }
    };
    if (inputs.empty())
        take(planSample());
    for (const std::string& input : inputs)
        take(planOpen({input}, open));
}

// One summary row per group; with several sets (and no --pool), each set's groups apart, named
// "set" or "set / group", each with its own basis under --basis auto, as the GUI's summary.
std::vector<RecordStats> summaryGroups(const OpenedRecords& opened, const SummaryOptions& summary,
                                       bool perSet) {
    std::vector<RecordStats> groups;
    if (perSet) {
        for (const auto& [name, setRecords] : opened.sets) {
            StatsOptions one = summary.stats;
            if (summary.basis == "auto")
                one.basis = defaultBasis(setRecords);
            for (RecordStats& g : computeGroupedStats(setRecords, summary.groupBy, one)) {
                g.key = summary.groupBy == GroupBy::None ? name : name + " / " + g.key;
                groups.push_back(std::move(g));
            }
        }
    } else if (!opened.records.empty()) {
        groups = computeGroupedStats(opened.records, summary.groupBy, summary.stats);
    }
    return groups;
}

// Projection per profiled workload (only when asked: the plain JSON stays the contract).
std::vector<RecordProjection> projectProfiles(const CliArgs& args,
                                              const std::vector<std::string>& profiles,
                                              const std::vector<EvalRecord>& records,
                                              const StatsOptions& stats) {
    std::vector<RecordProjection> projections;
    if (profiles.empty())
        return projections;
    const RuleSet rules = loadRules(args.value("--rules"));
    RecordProjectionOptions po;
    po.basis = stats.basis;
    po.denominator = stats.denominator;
    po.seed = stats.seed;
    po.resamples = stats.resamples;
    for (const Workload& w : readProfiles(profiles)) {
        projections.push_back(projectFromRecords(computeBreakdown(w, rules), records, po));
    }
    return projections;
}

// Records the harness called correct and Reach's verifier failed: the harness was fooled.
std::vector<const EvalRecord*> fooledRecords(const std::vector<EvalRecord>& records) {
    std::vector<const EvalRecord*> fooled;
    for (const EvalRecord& r : records) {
        if (r.correct && r.verification == Verification::Failed)
            fooled.push_back(&r);
    }
    return fooled;
}

std::string problemLabel(const EvalRecord& r) {
    return r.problemName.empty() ? r.problemId : r.problemName;
}

nlohmann::json fooledJson(const std::vector<const EvalRecord*>& fooled) {
    nlohmann::json out = nlohmann::json::array();
    for (const EvalRecord* r : fooled) {
        out.push_back({{"problem", problemLabel(*r)},
                       {"model", r->model},
                       {"backend", r->backend},
                       {"sample", r->sampleId},
                       {"harness", r->harness},
                       {"reasons", r->verificationReasons},
                       {"source", r->source}});
    }
    return out;
}

// reach-verify passes Reach did not sign here: counted as the harness's word only.
nlohmann::json claimedJson(const std::vector<EvalRecord>& records) {
    nlohmann::json claimed = nlohmann::json::array();
    for (const EvalRecord& r : records)
        if (r.verification == Verification::Unverified && !r.verificationReasons.empty() &&
            r.verificationReasons.front().rfind("claimed: ", 0) == 0)
            claimed.push_back({{"problem", problemLabel(r)},
                               {"source", r.source},
                               {"record", r.sourceLine},
                               {"evidence", "claimed"},
                               {"evidence_why", r.verificationReasons.front().substr(9)}});
    return claimed;
}

nlohmann::json publishedJson(const std::vector<const EvaluationSet*>& published) {
    nlohmann::json out = nlohmann::json::array();
    for (const EvaluationSet* p : published) {
        out.push_back({{"name", p->name},
                       {"winners", p->winners},
                       {"denominator", p->denominator},
                       {"win_rate", p->winRate()},
                       {"median_speedup", p->medianSpeedup ? nlohmann::json(*p->medianSpeedup)
                                                           : nlohmann::json(nullptr)}});
    }
    return out;
}

// --json: the groups, the fooled records, and (when any) the claimed passes, the published
// summaries and the projections (`profiled`: --profile was given, even for no workload).
void printSummaryJson(const OpenedRecords& opened, const std::vector<RecordStats>& groups,
                      const std::vector<RecordProjection>& projections, bool profiled, CliIo& io) {
    nlohmann::json doc = opened.records.empty()
                             ? nlohmann::json{{"groups", nlohmann::json::array()}}
                             : recordStatsToJson(groups);
    doc["fooled"] = fooledJson(fooledRecords(opened.records));
    if (nlohmann::json claimed = claimedJson(opened.records); !claimed.empty())
        doc["claimed"] = std::move(claimed);
    if (!opened.published.empty())
        doc["published_summaries"] = publishedJson(opened.published);
    if (profiled) {
        doc["projections"] = nlohmann::json::array();
        for (const auto& p : projections)
            doc["projections"].push_back(recordProjectionToJson(p));
    }
    io.out << reach::dumpJson(doc) << "\n";
}

// How many records each suspicion flag marks (--threshold, --degenerate).
std::map<SuspicionKind, int> suspicionCounts(const CliArgs& args,
                                             const std::vector<EvalRecord>& records) {
    SuspicionOptions flags;
    if (auto t = args.number("--threshold", 1.0, 1e9))
        flags.speedupThreshold = *t;
    if (auto d = args.value("--degenerate"))
        flags.degenerate = readDegenerateProblems(*d);
    std::map<SuspicionKind, int> flagged;
    for (const EvalRecord& r : records) {
        for (const Suspicion& s : suspicionsFor(r, flags))
            ++flagged[s.kind];
    }
    return flagged;
}

void printSummaryTable(const std::vector<RecordStats>& groups, GroupBy groupBy, bool perSet,
                       CliIo& io) {
    TextTable t({groupBy == GroupBy::None ? std::string("set")
                 : perSet                 ? "set / " + std::string(groupByKey(groupBy))
                                          : std::string(groupByKey(groupBy)),
                 "attempted", "compiled", "correct", "winners", "win rate [95% CI]",
                 "median [95% CI]", "geomean", "max", "median correct", "fast_1", "fast_2"});
    for (const RecordStats& s : groups) {
        t.addRow({s.key, std::to_string(s.attempted), std::to_string(s.compiled),
                  std::to_string(s.correct),
                  std::to_string(s.winners) + "/" + std::to_string(s.denominator),
                  percent(s.winRate) + " [" + percent(s.winRateCi.lo) + ", " +
                      percent(s.winRateCi.hi) + "]",
                  speedupText(s.medianSpeedup) +
                      (s.medianSpeedupCi ? " [" + fixed(s.medianSpeedupCi->lo, 3) + ", " +
                                               fixed(s.medianSpeedupCi->hi, 3) + "]"
                                         : ""),
                  speedupText(s.geomeanSpeedup), speedupText(s.maxSpeedup),
                  speedupText(s.medianSpeedupCorrect), fixed(s.fastP[3], 3), fixed(s.fastP[5], 3)});
    }
    io.out << t.render();
}

void printPublishedSummaries(const std::vector<const EvaluationSet*>& published, CliIo& io) {
    if (published.empty())
        return;
    io.out << "\npublished summaries (no records behind them):\n";
    TextTable pt({"set", "winners", "win rate", "median"});
    for (const EvaluationSet* p : published) {
        pt.addRow({p->name, std::to_string(p->winners) + "/" + std::to_string(p->denominator),
                   percent(p->winRate()), speedupText(p->medianSpeedup)});
    }
    io.out << pt.render();
}

// What the table's columns mean and how its intervals were drawn.
void printSummaryLegend(const StatsOptions& stats, const std::vector<RecordStats>& groups,
                        CliIo& io) {
    io.out << "\nwin rate = winners / denominator (" +
                  std::string(stats.denominator ? "set with --denominator"
                                                : "attempted problems; change with --denominator") +
                  "); winner = correct and speedup > 1 over the record's baseline (the fastest "
                  "of those it has; a --map speedup as the file gives it)\n"
                  "fast_p (KernelBench) = share of attempted problems correct with speedup > p; "
                  "intervals: seeded percentile bootstrap (seed "
           << stats.seed << ", " << resamplesText(stats.resamples, groups) << ")\n";
}

// The first ten fooled records, each with the verifier's reason.
void printFooled(const std::vector<const EvalRecord*>& fooled, CliIo& io) {
    if (fooled.empty())
        return;
    io.out << "\nfooled: " << fooled.size()
           << " record(s) the harness called correct and Reach's verifier failed\n";
    for (size_t i = 0; i < fooled.size() && i < 10; ++i) {
        const EvalRecord& r = *fooled[i];
        io.out << "  " << problemLabel(r) << (r.model.empty() ? "" : " (" + r.model + ")") << ": "
               << (r.verificationReasons.empty()      ? std::string("failed")
                   : r.verificationReasons.size() > 1 ? r.verificationReasons[1]
                                                      : r.verificationReasons[0])
               << "\n";
    }
    if (fooled.size() > 10)
        io.out << "  ... and " << fooled.size() - 10 << " more (--json lists them all)\n";
}

void printSuspicionFlags(const std::map<SuspicionKind, int>& flagged, CliIo& io) {
    if (flagged.empty())
        return;
    io.out << "\nsuspicion flags (records):";
    for (const auto& [kind, n] : flagged)
        io.out << " " << suspicionKey(kind) << " " << n;
    io.out << "\n";
}

// One profiled workload's projection: (a) the summary formula, (b) per family, exact Amdahl.
void printProjection(const RecordProjection& p, CliIo& io) {
    io.out << "\nprojection for " << p.workload << " (addressable " << percent(p.addressableShare)
           << ", records " << correctnessBasisLabel(p.basis) << ")\n";
    io.out << "  (a) summary A * w * (1 - 1/m): w = " << fixed(p.winRate, 3)
           << ", m = " << speedupText(p.medianSpeedup) << " -> saved " << percent(p.summarySaved, 2)
           << " [" << percent(p.summarySavedCi.lo, 2) << ", " << percent(p.summarySavedCi.hi, 2)
           << "]\n";
    io.out << "  (b) per family, exact Amdahl: saved " << percent(p.familySaved, 2) << " ["
           << percent(p.familySavedCi.lo, 2) << ", " << percent(p.familySavedCi.hi, 2)
           << "], end to end " << fixed(p.familyEndToEnd, 4) << "x; no records for "
           << percent(p.unmatchedShare, 2) << " of GPU time\n";
    TextTable ft({"family", "category", "share", "problems", "winners", "sigma", "saved"});
    for (const auto& f : p.families) {
        ft.addRow({f.family, f.category.empty() ? "-" : f.category, percent(f.share, 2),
                   std::to_string(f.problems), std::to_string(f.winners),
                   fixed(f.effectiveSpeedup, 3) + "x", percent(f.savedShare, 2)});
    }
    io.out << ft.render("    ");
    if (p.wall) {
        io.out << "  of the profiled wall clock (GPU busy " << percent(p.wall->busyShare())
               << " of the span, idle gaps unchanged): (a) "
               << percent(p.wall->wallShare(p.summarySaved), 2) << ", (b) "
               << percent(p.wall->wallShare(p.familySaved), 2) << "\n";
        if (p.wall->mostlyIdle())
            io.out << "  warning: " << wallClockWarning(*p.wall) << "\n";
    }
}

// The human-readable summary. The suspicion options are read (and checked) before any of it is
// written.
void printSummaryText(const CliArgs& args, const OpenedRecords& opened,
                      const SummaryOptions& summary, const std::vector<RecordStats>& groups,
                      bool perSet, const std::vector<RecordProjection>& projections, CliIo& io) {
    const std::map<SuspicionKind, int> flagged = suspicionCounts(args, opened.records);
    const StatsOptions& stats = summary.stats;
    io.out << opened.records.size()
           << " records; a problem counts once per model/backend (its best "
           << "correct sample); correct = " << correctnessBasisLabel(stats.basis);
    if (stats.winThreshold != 1.0)
        io.out << "; a win is a speedup above " << stats.winThreshold << "x";
    io.out << "\n\n";
    printSummaryTable(groups, summary.groupBy, perSet, io);
    printPublishedSummaries(opened.published, io);
    printSummaryLegend(stats, groups, io);
    printFooled(fooledRecords(opened.records), io);
    printSuspicionFlags(flagged, io);
    for (const RecordProjection& p : projections)
        printProjection(p, io);
    if (!projections.empty())
        io.out << "\nassumptions: " << projectionAssumptions() << "\n";
    if (const auto project = args.value("--project"))
        io.out << "\nproject: " << *project << "\n";
}

int runSpeedups(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto maps = takeRepeated(remaining, "--map");
    const auto baselines = takeRepeated(remaining, "--baseline");
    const auto profiles = takeRepeated(remaining, "--profile");
    const CliArgs args(
        remaining, {{"--json", "--verified-only", "--pool"},
                    {"--basis", "--group-by", "--denominator", "--level", "--model", "--backend",
                     "--dtype", "--categories", "--project", "--seed", "--resamples", "--threshold",
                     "--win-threshold", "--degenerate", "--preset", "--save-preset", "--rules"}});
    const auto project = args.value("--project");
    SummaryOptions summary = summaryOptionsFrom(args);
    RecordReadOptions read = recordReadOptionsFrom(args, baselines);
    std::optional<ProjectStore> store;
    if (project)
        store = ProjectStore::open(*project);
    applyColumnMapping(args, maps, store, read);

    std::vector<std::string> inputs = args.positionals();
    if (store && inputs.empty())
        inputs.push_back(*project);
    OpenedRecords opened;
    openRecordInputs(inputs, read, store, summary.stats, opened, io);
    // Which "correct" counts: the harness's word (default), Reach's verdict, or "auto": Reach's
    // verdict once it has judged any record, as the GUI's summaries do
    // (core/records/evaluationset.h).
    summary.stats.basis = summary.basis == "verified" ? CorrectnessBasis::Verified
                          : summary.basis == "auto"   ? defaultBasis(opened.records)
                                                      : CorrectnessBasis::Harness;
    if (opened.records.empty() && opened.published.empty())
        throw InputError(inputs.empty() ? std::string("the bundled sample") : inputs.front(), "",
                         "no evaluation records in the input (records in another shape are "
                         "read with --map FIELD=COLUMN, e.g. --map problem=name --map "
                         "speedup=speedup; see reach-cli speedups --help)");

    const bool perSet = opened.sets.size() > 1 && !args.flag("--pool");
    const std::vector<RecordStats> groups = summaryGroups(opened, summary, perSet);
    const std::vector<RecordProjection> projections =
        projectProfiles(args, profiles, opened.records, summary.stats);
    if (args.flag("--json"))
        printSummaryJson(opened, groups, projections, !profiles.empty(), io);
    else
        printSummaryText(args, opened, summary, groups, perSet, projections, io);
    return kExitOk;
}

}  // namespace

CliCommand speedupsCommand() {
    return {
        "speedups",
        "win rate, median/geomean/max speedup, fast_p and intervals of evaluation records",
        "speedups [RECORDS...] [--json] [--group-by model|backend|category|level]\n"
        "         [--denominator N] [--verified-only | --basis B] [--map FIELD=COLUMN ...]\n"
        "         [--baseline FILE ...] [--level L] [--model M] [--backend B] [--dtype D]\n"
        "         [--categories level1_categories.csv] [--project P.reach]\n"
        "         [--preset NAME] [--save-preset NAME] [--seed S] [--resamples R]\n"
        "         [--win-threshold W] [--threshold X] [--degenerate kb_level1_h200_bf16.json]\n"
        "         [--profile TRACE ... [--rules R.json]] [--pool]\n"
        "  RECORDS        Reach JSONL (docs/records.md), KernelBench eval_results.json (with\n"
        "                 --baseline baseline_time_*.json, repeatable; the fastest is used),\n"
        "                 reach-verify output (a file or a folder of them), or a CSV/JSON list\n"
        "                 read with --map (problem=, model=, speedup=, candidate_time=,\n"
        "                 baseline_time=, correct=, level=, category=, time_unit=ms, ...);\n"
        "                 also a folder of reach-verify outputs (one set), a .reach project\n"
        "                 (its record sets), a published study table (its summaries); none:\n"
        "                 the bundled sample's evaluation sets\n"
        "  --pool         one summary of every set's records together; by default each\n"
        "                 evaluation set is its own row (\"set\" or \"set / group\"), as in\n"
        "                 the GUI\n"
        "  --denominator  win-rate denominator (e.g. 56); attempted problems by default\n"
        "  --win-threshold  a win is a best correct speedup above W (default 1: any speedup;\n"
        "                 1.05 leaves timing noise out); the GUI's \"win above\" box\n"
        "  --verified-only  count as correct only what Reach's verifier passed (--basis\n"
        "                 verified); --basis auto: Reach's verdict once it has judged any\n"
        "                 record, else the harness's (what the GUI's summaries use); default\n"
        "                 harness: the harness's word\n"
        "  --profile      also project each profiled workload: (a) the summary A*w*(1-1/m) and\n"
        "                 (b) per family (its category's records, exact Amdahl), with intervals;\n"
        "                 --json then adds \"projections\"\n"
        "  --project      store each file in the project (one transaction per file); without\n"
        "                 RECORDS, use every record set stored there\n"
        "  --json         "
        "{\"groups\":[{\"key\",\"attempted\",\"compiled\",\"correct\",\"winners\",\n"
        "                 \"win_rate\",\"median_speedup\",\"geomean_speedup\",\"max_speedup\",\n"
        "                 "
        "\"median_speedup_correct\",\"fast_p\":{\"0\",\"0.5\",\"0.8\",\"1\",\"1.5\",\"2\"},\n"
        "                 \"ci95\":{\"win_rate\":[lo,hi],\"median_speedup\":[lo,hi]}}],\n"
        "                 \"fooled\":[{\"problem\",\"model\",\"backend\",\"sample\",\"harness\",\n"
        "                 \"reasons\",\"source\"}], \"published_summaries\":[...] (when any)}",
        runSpeedups};
}

}  // namespace reach::cli
