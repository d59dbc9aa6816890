// reach-cli breakdown FILE... [--project P.reach] [--rules R.json] [--top N] [--json]
// reach-cli breakdown RANK0 RANK1 ... --ranks [--rules R.json] [--json] (clibreakdownranks.cpp)
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

#include "app/args/cliargs.h"
#include "clibreakdownranks.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/breakdownjson.h"
#include "core/analysis/kernelname.h"
#include "core/base/category.h"
#include "core/base/textescape.h"

namespace reach::cli {

namespace {

constexpr long kDefaultTopText = 5;
constexpr long kDefaultTopJson = 20;
constexpr size_t kKernelColumn = 64;  // display names longer than this are elided in the middle

void printWorkload(std::ostream& os, const Breakdown& b, size_t top) {
    os << b.workload << "\n";
    os << "  source    " << b.source << (b.device.empty() ? "" : "  (" + b.device + ")") << "\n";
    os << "  GPU time  " << duration(b.gpuTimeUs) << " summed over kernels, memcpy and memset\n";
    if (b.spanUs > 0) {
        os << "  busy      " << duration(b.busyTimeUs) << " of a " << duration(b.spanUs)
           << " profiled span (" << percent(b.busyTimeUs / b.spanUs) << " busy, "
           << percent(1.0 - b.busyTimeUs / b.spanUs) << " idle)\n";
    }
    os << "  classified " << percent(b.classifiedShare, 2) << " of GPU time by rules '"
       << b.rulesName << "'\n";
    // How it was decided: the name rules first, then the launching operator, then the kind.
    os << "  decided by name rules " << percent(b.decisionShare(Decision::Rule), 2)
       << ", launching operators " << percent(b.decisionShare(Decision::Operator), 2)
       << ", memcpy/memset kind " << percent(b.decisionShare(Decision::Kind), 2) << "\n";
    if (b.graphUs > 0) {
        os << "  graphs    " << percent(b.gpuTimeUs > 0 ? b.graphUs / b.gpuTimeUs : 0)
           << " of GPU time ran in CUDA graph replays (" << duration(b.graphUs) << ")\n";
    }
    os << "\n";

    TextTable shares({"category", "share", "time"});
    for (Category c : kCategories) {
        shares.addRow({std::string(categoryLabel(c)), percent(b.share(c)),
                       duration(b.categoryUs[static_cast<size_t>(c)])});
    }
    os << shares.render();

    if (b.hasOpSplit && b.opLinkedUs > 0) {
        // Linked time goes to the operator's category, unlinked time keeps its name category.
        os << "\n  operator split (" << percent(b.linkedShare())
           << " of GPU time is linked to its launching ATen operator";
        // Launches the trace missed, linked as their repeats are: said with what stays unlinked.
        if (b.twinLinkedUs > 0)
            os << ", " << percent(b.twinLinkedShare())
               << " of it through a twin: launches the trace missed, linked as their repeats are; "
               << percent(1 - b.linkedShare()) << " unlinked";
        os << ")\n";
        TextTable ops({"category", "by name", "by operator"});
        for (Category c : kCategories) {
            ops.addRow({std::string(categoryLabel(c)), percent(b.share(c)), percent(b.opShare(c))});
        }
        os << ops.render();
        os << "  name rules and operators agree on " << percent(b.opAgreement())
           << " of linked time (NCCL excluded)\n";
    }

    for (Category c : kCategories) {
        const auto kernels = b.top(c, top);
        if (kernels.empty())
            continue;
        os << "\n  top " << categoryLabel(c) << "\n";
        TextTable t({"kernel", "family", "share", "time", "calls"});
        for (const ClassifiedKernel* k : kernels) {
            t.addRow({kernelDisplayName(k->stats.name, kKernelColumn),
                      k->family.empty() ? "-" : k->family,
                      percent(b.gpuTimeUs > 0 ? k->stats.totalUs / b.gpuTimeUs : 0),
                      duration(k->stats.totalUs), std::to_string(k->stats.calls)});
        }
        os << t.render("    ");
    }
}

void printPublished(std::ostream& os, const ProjectWorkload& w) {
    os << w.name << "  (" << w.origin << ")\n";
    os << "  as published: library-optimized " << percent(w.publishedLibraryOptimized)
       << ", addressable " << percent(w.publishedAddressable)
       << " of GPU time; no kernels to classify\n";
}

nlohmann::json publishedJson(const ProjectWorkload& w) {
    return {{"name", w.name},
            {"origin", w.origin},
            {"published", true},
            {"shares",
             {{"library_optimized", w.publishedLibraryOptimized},
              {"addressable", w.publishedAddressable}}}};
}

int runBreakdown(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(argv,
                       {{"--json", "--ranks"},
                        {"--rules", "--project", "--top", "--rank-summary", "--jobs", "--memory"}});
    if (args.value("--rank-summary"))
        return runRankSummary(args, io);
    if (args.flag("--ranks"))
        return runBreakdownRanks(args, io);
    const bool json = args.flag("--json");
    const auto top = static_cast<size_t>(
        args.integer("--top", 1, 100000).value_or(json ? kDefaultTopJson : kDefaultTopText));
    // Profiles, folders, a .reach project, published tables; nothing: the bundled sample.
    const Project project =
        openCliInputs(args.positionals(), args.value("--project"), args.value("--rules"));
    for (const std::string& w : project.warnings)
        io.err << w << "\n";

    if (json) {
        nlohmann::json doc;
        doc["workloads"] = nlohmann::json::array();
        for (const ProjectWorkload& w : project.workloads) {
            doc["workloads"].push_back(w.breakdown ? breakdownToJson(*w.breakdown, top)
                                                   : publishedJson(w));
        }
        doc["rules"] = {{"name", project.rules.name()}, {"hash", project.rules.hash()}};
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    if (project.workloads.empty())
        io.out << "no workloads (the project is empty)\n";
    for (size_t i = 0; i < project.workloads.size(); ++i) {
        if (i)
            io.out << "\n";
        const ProjectWorkload& w = project.workloads[i];
        if (w.breakdown)
            printWorkload(io.out, *w.breakdown, top);
        else
            printPublished(io.out, w);
    }
    io.out << "\nrules: " << project.rules.name() << " (" << project.rules.hash().substr(0, 12)
           << ")\n";
    return kExitOk;
}

}  // namespace

CliCommand breakdownCommand() {
    return {
        "breakdown", "GPU time per category, classified share, top kernels per category",
        "breakdown [INPUT...] [--project P.reach] [--rules R.json] [--top N] [--json]\n"
        "breakdown RANK0 RANK1 ... --ranks [--rules R.json] [--jobs N] [--memory MIB] [--json]\n"
        "breakdown RANK_TRACE --rank-summary OUT [--rules R.json]\n"
        "  INPUT        profile: Kineto/PyTorch trace (.json, .json.gz) or nsys SQLite export;\n"
        "               a folder of profiles; a .reach project; a published study table\n"
        "               (workloads as published); none: the bundled sample project\n"
        "  --project P  project P first (its workloads; --rules are remembered in it)\n"
        "  --rules R    classification rules (default: the project's last-used rules, else\n"
        "               the built-in rule set)\n"
        "  --top N      kernels shown per category (text, default 5) or listed (JSON, "
        "default 20)\n"
        "  --ranks      the traces (files or a folder) of one distributed run: each rank's\n"
        "               breakdown, communication split into transfer and wait, collectives\n"
        "               matched across ranks, clock offsets, stragglers, the critical rank\n"
        "               (docs/distributed.md); a rank may be given as its summary\n"
        "  --jobs N     with --ranks: ranks read at once (default: the cores, at most 8)\n"
        "  --memory MIB with --ranks: the readings at once hold about this much at most\n"
        "               (default 2048; 0: no bound); a rank too large for it is read alone\n"
        "  --rank-summary OUT  one rank's scan and breakdown for a later --ranks (the map\n"
        "               of a run read on many machines, e.g. a Slurm job array)\n"
        "  --json       one JSON document: {\"workloads\":[...],\"rules\":{\"name\",\"hash\"}}",
        runBreakdown};
}

}  // namespace reach::cli
