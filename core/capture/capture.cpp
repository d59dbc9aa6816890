#include "core/capture/capture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/base/textescape.h"
#include "core/verify/childprocess.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A folder of the capture's own for the raw trace and the report, removed when it is done.
struct ScratchDir {
    std::string path;
    ScratchDir() {
        std::string tmpl = (fs::temp_directory_path() / "reach-capture-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr)
            throw InputError(fs::temp_directory_path().string(), "", "a writable temporary folder");
        path = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// `from` gzip-compressed into `to`, written whole or not at all (a temporary beside it, renamed).
void gzipFile(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    if (!in)
        throw CaptureFailed("the workload's run wrote no trace");
    const std::string tmp = to + ".partial";
    gzFile gz = gzopen(tmp.c_str(), "wb6");
    if (!gz)
        throw InputError(to, "", "a file the trace can be written to");
    std::vector<char> buf(1 << 20);
    bool ok = true;
    while (ok && in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        const std::streamsize n = in.gcount();
        if (n > 0)
            ok = gzwrite(gz, buf.data(), unsigned(n)) == int(n);
    }
    ok = (gzclose(gz) == Z_OK) && ok;
    std::error_code ec;
    if (ok)
        fs::rename(tmp, to, ec);
    if (!ok || ec) {
        fs::remove(tmp, ec);
        throw InputError(to, "", "a file the trace can be written to");
    }
}

// Whether `program` names an executable file: a path as it is, a bare name on $PATH (checked
// before anything runs, so a typo is the one line of bad input, not a failed run).
bool executableFound(const std::string& program) {
    if (program.empty())
        return false;
    if (program.find('/') != std::string::npos)
        return ::access(program.c_str(), X_OK) == 0 && fs::is_regular_file(program);
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t at = 0;
    while (at <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', at), dirs.size());
        const std::string candidate =
            (end > at ? dirs.substr(at, end - at) : std::string(".")) + "/" + program;
        if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate))
            return true;
        at = end + 1;
    }
    return false;
}

// The last `lines` lines of a log.
std::string tail(const std::string& log, int lines) {
    size_t at = log.size();
    for (int n = 0; n <= lines && at > 0; ++n) {
        const size_t nl = log.rfind('\n', at - 1);
        if (nl == std::string::npos)
            return log;
        if (n < lines)
            at = nl;
        else
            return log.substr(nl + 1);
    }
    return log.substr(at);
}

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100 * share);
    return buf;
}

}  // namespace

Capture captureWorkload(const CaptureOptions& o, const CaptureProgress& progress,
                        std::stop_token stop) {
    if (o.workload.size() < 2)
        throw InputError("--", "", "a workload: PYTHON SCRIPT [ARGS...]");
    if (!executableFound(o.workload[0]))
        throw InputError(o.workload[0], "", "an interpreter that starts (no such program)");
    const std::string& script = o.workload[1];
    if (!fs::is_regular_file(script))
        throw InputError(script, "", "a Python script to run (the workload)");
    const std::string res = o.resourceDir.empty() ? findResourceDir() : o.resourceDir;
    const std::string pydir = res + "/python";
    if (!fs::is_regular_file(pydir + "/reach_integrate/capture.py"))
        throw InputError(pydir + "/reach_integrate/capture.py", "",
                         "Reach's capture module (its resources)");
    ScratchDir scratch;
    const std::string raw = scratch.path + "/trace.json", report = scratch.path + "/report.json";
    std::vector<std::string> argv = {o.workload[0],
                                     "-m",
                                     "reach_integrate.capture",
                                     "--device",
                                     o.device,
                                     "--warmup",
                                     std::to_string(o.warmup),
                                     "--steps",
                                     std::to_string(o.steps),
                                     "--trace",
                                     raw,
                                     "--report",
                                     report,
                                     "--"};
    argv.insert(argv.end(), o.workload.begin() + 1, o.workload.end());
    std::string pythonPath = "PYTHONPATH=" + pydir;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old)
        pythonPath += std::string(":") + old;
    if (progress)
        progress("running " + script + " under the profiler (" + std::to_string(o.warmup) +
                 " warm-up steps, then " + std::to_string(o.steps) + " profiled, on " + o.device +
                 ")");
    const ChildResult child = runChild(argv, o.timeoutSeconds, {pythonPath}, stop);
    if (!child.started)
        throw InputError(o.workload[0], "", "an interpreter that starts (" + child.error + ")");
    const std::optional<json> doc = trySniffJsonFile(report);
    const json r = doc && doc->is_object() ? *doc : json::object();
    const std::string why =
        r.value("error", json()).is_string() ? r["error"].get<std::string>() : tail(child.err, 1);
    Capture c;
    c.workloadLog = tail(child.out + child.err, 40);
    c.seconds = child.seconds;
    if (child.cancelled)
        throw CaptureFailed("cancelled");
    if (child.timedOut)
        throw CaptureFailed("the workload ran past " + std::to_string(int(o.timeoutSeconds)) +
                            " s");
    if (child.exitCode == 2)
        throw InputError(script, "", escapeControls(why.empty() ? "a workload that starts" : why));
    if (child.exitCode != 0)
        throw CaptureFailed(escapeControls(
            why.empty()
                ? "the workload's run ended with status " + std::to_string(child.exitCode) +
                      (child.termSignal ? " (signal " + std::to_string(child.termSignal) + ")"
                                        : std::string())
                : why));
    if (progress)
        progress("writing " + o.out);
    gzipFile(raw, o.out);
    c.trace = o.out;
    c.device = o.device;
    c.marker = r.value("marker", std::string("none"));
    c.profiled = r.value("profiled", json()).is_string() ? r["profiled"].get<std::string>() : "";
    c.stepsMarked = r.value("steps_marked", 0);
    c.profiledSteps = r.value("profiled_steps", 0);
    if (r.contains("wall_us") && r["wall_us"].is_array())
        for (const json& v : r["wall_us"])
            if (v.is_number())
                c.wallUs.push_back(v.get<double>());
    c.torchVersion = r.value("torch", json()).is_string() ? r["torch"].get<std::string>() : "";
    const json rec = r.value("recording", json::object());
    if (rec.is_object()) {
        c.operatorCalls = rec.value("operator_calls", 0);
        c.shapedCalls = rec.value("with_shapes", 0);
        if (rec.contains("foreach_lists_unrecorded") && rec["foreach_lists_unrecorded"].is_array())
            for (const json& f : rec["foreach_lists_unrecorded"])
                if (f.is_object() && f.value("operator", json()).is_string())
                    c.foreachUnrecorded.push_back(
                        {f["operator"].get<std::string>(), f.value("calls", 0)});
    }
    return c;
}

CaptureReview reviewCapture(const Capture& c, const Workload* workload, const RuleSet& rules) {
    CaptureReview r;
    if (c.marker == "none")
        r.advice.push_back(
            "no step was marked: the whole run was profiled; call reach_step() (from "
            "reach_integrate.steps) or your profiler's prof.step() after each step to profile "
            "steady-state steps after a warm-up");
    else if (c.profiled == "partial")
        r.advice.push_back("the workload marked " + std::to_string(c.stepsMarked) +
                           " steps: fewer than the warm-up and the steps asked, so " +
                           std::to_string(c.profiledSteps) + " were profiled");
    else if (c.profiled == "whole")
        r.advice.push_back("the workload marked " + std::to_string(c.stepsMarked) +
                           " steps, not past the warm-up: the whole run was profiled");
    if (!c.foreachUnrecorded.empty()) {
        std::string ops;
        for (const auto& [op, calls] : c.foreachUnrecorded)
            ops += (ops.empty() ? "" : ", ") + op;
        r.advice.push_back(
            "the optimizer's foreach calls (" + ops +
            ") record their tensor lists empty, so extraction cannot make problems of them: "
            "construct the optimizer with foreach=False (each parameter's update then records "
            "its shapes)");
    }
    if (c.operatorCalls > 0 && c.shapedCalls == 0)
        r.advice.push_back("no operator call recorded its input shapes");
    if (!workload) {
        r.advice.push_back(
            "recorded on the CPU: the breakdown, headroom and extraction read GPU time; run it on "
            "a GPU machine (--device cuda) for them");
        return r;
    }
    r.breakdown = computeBreakdown(*workload, rules);
    r.extraction = extractBenchmark(*r.breakdown, ExtractOptions{});
    const Extraction& e = *r.extraction;
    if (e.categoryUs > 0 && e.coveredShare() < 0.9) {
        r.advice.push_back("extraction would cover " + percent(e.coveredShare()) +
                           " of the addressable time, under the 90 % asked");
        if (e.shapedUs < 0.9 * e.categoryUs)
            r.advice.push_back(percent(1 - e.shapedUs / e.categoryUs) +
                               " of the addressable time is under no operator call with recorded "
                               "shapes (kernels launched outside an operator the profiler saw)");
        int shown = 0;
        for (const SkippedOperator& s : skippedByOperator(e)) {
            if (shown++ == 3)
                break;
            r.advice.push_back("skipped " + s.op + " (" + percent(s.us / e.categoryUs) +
                               "): " + s.why);
        }
    }
    return r;
}

json captureJson(const Capture& c, const CaptureReview& r) {
    json foreach = json::array();
    for (const auto& [op, calls] : c.foreachUnrecorded)
        foreach
            .push_back({{"operator", op}, {"calls", calls}});
    json doc = {{"trace", c.trace},
                {"device", c.device},
                {"marker", c.marker},
                {"profiled", c.profiled},
                {"steps_marked", c.stepsMarked},
                {"profiled_steps", c.profiledSteps},
                {"wall_us", c.wallUs},
                {"torch", c.torchVersion},
                {"seconds", c.seconds},
                {"recording",
                 {{"operator_calls", c.operatorCalls},
                  {"with_shapes", c.shapedCalls},
                  {"foreach_lists_unrecorded", foreach}}},
                {"advice", r.advice}};
    if (r.breakdown) {
        const Breakdown& b = *r.breakdown;
        doc["breakdown"] = {{"device", b.device},
                            {"gpu_time_us", b.gpuTimeUs},
                            {"library_optimized", b.share(Category::LibraryOptimized)},
                            {"addressable", b.share(Category::Addressable)},
                            {"overhead", b.share(Category::Overhead)},
                            {"unclassified", b.share(Category::Unclassified)}};
    } else {
        doc["breakdown"] = nullptr;
    }
    if (r.extraction) {
        const Extraction& e = *r.extraction;
        doc["extraction"] = {
            {"problems", e.problems.size()},
            {"covered_share_of_addressable", e.coveredShare()},
            {"shaped_share_of_addressable", e.categoryUs > 0 ? e.shapedUs / e.categoryUs : 0.0}};
    } else {
        doc["extraction"] = nullptr;
    }
    return doc;
}

}  // namespace reach
