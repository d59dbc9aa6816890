// reach-cli headroom [INPUT...] [--gpu NAME|local] [--gpu-info F] [--top N] [--win-rate W --median
// M]
//                    [--json]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/kernelname.h"
#include "core/analysis/projection.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/textescape.h"
#include "core/headroom/headroom.h"
#include "core/headroom/headroomjson.h"
#include "core/project/project.h"
#include "core/verify/childprocess.h"
#include "core/verify/verifyprocess.h"

namespace reach::cli {

namespace {

constexpr long kDefaultTopText = 10;
constexpr long kDefaultTopJson = 50;

std::string gpuNames() {
    std::string s;
    for (const GpuSpec& g : gpuTable())
        s += (s.empty() ? "" : ", ") + g.name;
    return s;
}

// The local GPU's row: the verifier asked for its device and a measured copy bandwidth (a few
// seconds: a CUDA context and ten copies of 512 MiB).
GpuSpec localGpu() {
    const std::string verifier = findVerifierExecutable();
    const ChildResult c = runChild({verifier, "--device-info", "--bandwidth"}, 120);
    if (!c.started)
        throw InputError(verifier, "--gpu local", "a verifier to ask (" + c.error + ")");
    const std::optional<nlohmann::json> j = tryParseJson(c.out);
    if (!j)
        throw InputError(verifier, "--device-info --bandwidth",
                         "the device's JSON on stdout (it printed none; exit " +
                             std::to_string(c.exitCode) + ")");
    return gpuFromDeviceInfo(*j, verifier + " --device-info --bandwidth");
}

// The study's projection parameters: --win-rate/--median, else the opened study's own.
struct Rates {
    double winRate = 0, median = 1;
    std::string source;
};

void printWorkload(std::ostream& os, const Headroom& h, const Breakdown& b,
                   const std::optional<Projection>& proj, const std::optional<Rates>& rates,
                   size_t top) {
    os << h.workload << "\n";
    os << "  GPU       " << h.gpu.name << " ("
       << (h.device.empty() ? "no device in the trace" : h.device)
       << "): " << fixed(h.gpu.dramGBs, 0) << " GB/s DRAM, " << fixed(h.gpu.bf16Tflops, 1)
       << " TFLOP/s BF16, " << fixed(h.gpu.fp32Tflops, 1) << " FP32 (dense; " << h.gpu.source
       << ")\n";
    os << "  coverage  " << percent(h.coverage()) << " of GPU time has a work estimate ("
       << duration(h.total.estimatedUs) << " of " << duration(h.gpuTimeUs) << ")"
       << (h.hasShapes ? "" : "; " + h.noShapesWhy()) << "\n";
    // Launches the trace missed, linked through their twins (core/trace/kinetomerge.h): said,
    // with what stays unlinked, since the estimate follows the links.
    if (b.twinLinkedUs > 0)
        os << "  links     " << percent(b.twinLinkedShare())
           << " of GPU time linked to its operator through a twin (launches the trace missed); "
           << percent(1 - b.linkedShare()) << " unlinked\n";
    if (h.total.estimatedUs <= 0) {
        os << "  headroom  none computed: no kernel has a work estimate, so there is no bound "
              "either\n";
        for (size_t i = 0; i < h.noEstimate.size() && i < 3; ++i) {
            os << "            " << h.noEstimate[i].reason
               << (h.noEstimate[i].op.empty() ? "" : " (" + h.noEstimate[i].op + ")") << ": "
               << percent(h.noEstimate[i].us / h.gpuTimeUs) << " of GPU time\n";
        }
        return;
    }
    const auto wall = h.wallShare(h.headroomShare());
    os << "  headroom  " << percent(h.headroomShare()) << " of GPU time ("
       << duration(h.total.headroomUs) << ")";
    if (wall)
        os << ", " << percent(*wall) << " of wall clock";
    os << ": saved if every estimated kernel ran at its roofline\n";
    os << "  bound     speed of light: at most " << times(h.boundSpeedup()) << " on GPU time";
    if (wall)
        os << ", " << times(endToEndSpeedup(*wall)) << " on wall clock";
    os << " (no kernel, generated or hand-written, does better on this profile's estimated "
          "time)\n\n";

    TextTable cats(
        {"category", "share", "estimated", "at roofline", "headroom", "of wall", "bound"});
    for (Category c : kCategories) {
        const HeadroomTotals& t = h.categories[static_cast<size_t>(c)];
        if (t.us <= 0)
            continue;
        const auto cw = h.wallShare(h.categoryHeadroomShare(c));
        cats.addRow({std::string(categoryLabel(c)), percent(t.us / h.gpuTimeUs),
                     percent(t.us > 0 ? t.estimatedUs / t.us : 0),
                     percent(t.estimatedUs > 0 ? t.solUs / t.estimatedUs : 0),
                     percent(h.categoryHeadroomShare(c)), cw ? percent(*cw) : "-",
                     times(h.categoryBoundSpeedup(c))});
    }
    os << cats.render();
    os << "  (share and headroom: of GPU time; estimated: of the category's time; at roofline: "
          "t_sol / t of the estimated time)\n";

    const HeadroomTotals& a = h.categories[static_cast<size_t>(Category::Addressable)];
    os << "\n  addressable " << percent(h.gpuTimeUs > 0 ? a.us / h.gpuTimeUs : 0)
       << " of GPU time: its headroom " << percent(h.categoryHeadroomShare(Category::Addressable))
       << " (speed-of-light bound " << times(h.categoryBoundSpeedup(Category::Addressable)) << ")";
    if (proj && rates) {
        os << "; the study's projection A*w*(1-1/m) = " << percent(proj->addressableShare) << " x "
           << fixed(rates->winRate, 3) << " x (1 - 1/" << fixed(rates->median, 3)
           << ") = " << percent(proj->savedShare, 2) << " (" << times(proj->endToEndSpeedup)
           << "; w, m: " << rates->source << ")";
    } else {
        os << "; no projection beside it (pass --win-rate W --median M)";
    }
    os << "\n";

    os << "\n  per family\n";
    std::vector<std::pair<std::string, HeadroomTotals>> fams(h.families.begin(), h.families.end());
    std::stable_sort(fams.begin(), fams.end(), [](const auto& x, const auto& y) {
        return x.second.headroomUs > y.second.headroomUs;
    });
    TextTable ft({"family", "share", "estimated", "at roofline", "headroom"});
    ft.alignLeft(0);
    for (const auto& [name, t] : fams) {
        ft.addRow({name, percent(t.us / h.gpuTimeUs), percent(t.us > 0 ? t.estimatedUs / t.us : 0),
                   percent(t.estimatedUs > 0 ? t.solUs / t.estimatedUs : 0),
                   percent(t.headroomUs / h.gpuTimeUs)});
    }
    os << ft.render("    ");

    os << "\n  top kernels by headroom\n";
    TextTable kt(
        {"kernel", "operator", "time", "t_sol", "of SOL", "GB/s", "TFLOP/s", "FLOP/B", "headroom"});
    kt.alignLeft(0);
    kt.alignLeft(1);
    for (size_t i = 0; i < h.kernels.size() && i < top; ++i) {
        const KernelRoofline& k = h.kernels[i];
        if (k.estimatedUs <= 0)
            break;
        kt.addRow({kernelDisplayName(k.name, 48), k.op, duration(k.estimatedUs), duration(k.solUs),
                   percent(k.fractionOfSol()), fixed(k.achievedBytesPerSecond() / 1e9, 0),
                   fixed(k.achievedFlopsPerSecond() / 1e12, 1), fixed(k.intensity(), 1),
                   percent(k.headroomUs() / h.gpuTimeUs)});
    }
    os << kt.render("    ");

    if (!h.noEstimate.empty()) {
        os << "\n  no estimate (" << percent(1 - h.coverage()) << " of GPU time)\n";
        TextTable nt({"why", "operator", "share"});
        nt.alignLeft(0);
        nt.alignLeft(1);
        for (size_t i = 0; i < h.noEstimate.size() && i < top; ++i) {
            const NoEstimate& m = h.noEstimate[i];
            nt.addRow({m.reason, m.op.empty() ? "-" : m.op, percent(m.us / h.gpuTimeUs, 2)});
        }
        os << nt.render("    ");
    }
}

int runHeadroom(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(
        argv, {{"--json"},
               {"--gpu", "--gpu-info", "--top", "--rules", "--project", "--win-rate", "--median"}});
    const bool json = args.flag("--json");
    const auto top = static_cast<size_t>(
        args.integer("--top", 1, 100000).value_or(json ? kDefaultTopJson : kDefaultTopText));
    const GpuSpec* forced = nullptr;
    std::optional<GpuSpec> measured;  // --gpu local or --gpu-info: the measured row
    const auto name = args.value("--gpu");
    const auto info = args.value("--gpu-info");
    if (name && info)
        throw UsageError("--gpu and --gpu-info: give one");
    if (info)
        measured = gpuFromDeviceInfo(
            parseJson(readJsonFile(*info, "reach-verify --device-info --bandwidth output"), *info,
                      "reach-verify --device-info --bandwidth output"),
            *info);
    else if (name && *name == "local")
        measured = localGpu();
    else if (name) {
        forced = gpuByName(*name);
        if (!forced)
            throw UsageError("--gpu '" + *name + "': no such GPU in the table (" + gpuNames() +
                             ", or local)");
    }
    if (measured)
        forced = &*measured;
    const auto winRate = args.number("--win-rate", 0.0, 1.0);
    const auto median = args.number("--median", 1e-9, 1e9);
    if (winRate.has_value() != median.has_value())
        throw UsageError("--win-rate W and --median M go together");

    const Project project =
        openCliInputs(args.positionals(), args.value("--project"), args.value("--rules"));
    for (const std::string& w : project.warnings)
        io.err << w << "\n";
    std::optional<Rates> rates;
    if (winRate)
        rates = Rates{*winRate, *median, "--win-rate/--median"};
    else if (!project.studies.empty())
        rates = Rates{project.studies.front().winRate, project.studies.front().medianSpeedup,
                      "the study's, " + project.studies.front().source};

    nlohmann::json doc;
    doc["workloads"] = nlohmann::json::array();
    bool first = true;
    for (const ProjectWorkload& w : project.workloads) {
        if (!w.breakdown)
            continue;  // published rows have no kernels
        const GpuSpec* gpu = forced ? forced : gpuForDevice(w.breakdown->device);
        if (!gpu) {
            const std::string why = "no GPU row for device '" + w.breakdown->device +
                                    "' (pass --gpu NAME: " + gpuNames() + ")";
            if (json)
                doc["workloads"].push_back({{"name", w.name}, {"error", why}});
            else
                io.out << (first ? "" : "\n") << w.name << "\n  " << why << "\n";
            first = false;
            continue;
        }
        const Headroom h = computeHeadroom(*w.breakdown, *gpu);
        std::optional<Projection> proj;
        if (rates)
            proj = projectWorkload(w, rates->winRate, rates->median);
        if (json) {
            nlohmann::json j = headroomToJson(h, top);
            if (proj) {
                j["study_projection"] = {
                    {"addressable_share", proj->addressableShare},
                    {"win_rate", rates->winRate},
                    {"median_speedup", rates->median},
                    {"saved_share_of_gpu_time", proj->savedShare},
                    {"saved_share_of_wall_clock", proj->wallSavedShare()
                                                      ? nlohmann::json(*proj->wallSavedShare())
                                                      : nlohmann::json(nullptr)},
                    {"source", rates->source}};
            }
            doc["workloads"].push_back(std::move(j));
        } else {
            if (!first)
                io.out << "\n";
            printWorkload(io.out, h, *w.breakdown, proj, rates, top);
        }
        first = false;
    }
    if (json) {
        doc["rules"] = {{"name", project.rules.name()}, {"hash", project.rules.hash()}};
        doc["assumptions"] = projectionAssumptions();
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    if (first)
        io.out << "no measured workloads (published rows have no kernels)\n";
    io.out << "\nrules: " << project.rules.name() << " (" << project.rules.hash().substr(0, 12)
           << "); roofline t_sol = max(bytes / DRAM bandwidth, FLOPs / peak) per operator call "
              "(docs/headroom.md)\n";
    if (rates)
        io.out << projectionAssumptions() << "\n";
    return kExitOk;
}

}  // namespace

CliCommand headroomCommand() {
    return {
        "headroom", "how far each kernel is from the GPU's roofline; the speed-of-light bound",
        "headroom [INPUT...] [--gpu NAME|local] [--gpu-info F] [--top N] [--win-rate W --median "
        "M]\n"
        "         [--rules R.json] [--project P.reach] [--json]\n"
        "  INPUT         profiles recorded with record_shapes=True (Kineto .json/.json.gz), a\n"
        "                folder, a .reach project, a study table; none: the bundled sample\n"
        "  --gpu NAME    the roofline's GPU (default: the trace's deviceProperties name): H100\n"
        "                SXM 80GB, H100 PCIe 80GB, H200, B200, A100 40GB, A100 SXM 80GB, A100\n"
        "                PCIe 80GB, L40S, MI300X (a unique prefix is enough); local: this\n"
        "                machine's GPU, its row with the DRAM ceiling measured by a copy\n"
        "                (reach-verify --device-info --bandwidth)\n"
        "  --gpu-info F  the same from F, that command's output saved on the GPU's machine\n"
        "  --top N       kernels listed (text 10, JSON 50)\n"
        "  --win-rate W --median M\n"
        "                the study's projection A*w*(1-1/m) beside the addressable headroom\n"
        "                (default: the opened study table's own rates, else none)\n"
        "  --json        one JSON document: {\"workloads\":[...],\"rules\",\"assumptions\"}",
        runHeadroom};
}

}  // namespace reach::cli
