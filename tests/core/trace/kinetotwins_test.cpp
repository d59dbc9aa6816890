// Kernels whose launch the trace missed (issue 41, item 1): a trace recorded by another tool
// starts its CPU window after its GPU window, so the first step's kernels have no runtime call
// and no External id. They are linked to the operator call of their twin (same kernel, launch
// shape and stream neighbours, linked later in the file) when that names one call, and the time
// linked that way is said (Workload::twinLinkedUs).
//
// The cases are real traces made into such a trace here: the kernels of the first 30 % of GPU
// time lose their External id and correlation, and the operators and runtime calls that launched
// them are removed. The original trace is the ground truth of every link.
#include <gtest/gtest.h>

#include <zlib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/store/projectstore.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"

namespace reach_test_kinetotwins_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json readGz(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    EXPECT_NE(f, nullptr) << path;
    std::string text;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        text.append(buf, size_t(n));
    gzclose(f);
    return json::parse(text);
}

// The trace with the GPU activities (kernels, copies, memsets) of its first `share` of GPU time
// unlinked, as a trace whose CPU window began late records them; *cutUs is their time.
json missLaunches(json trace, double share, double* cutUs) {
    json& events = trace["traceEvents"];
    std::vector<size_t> kernels;
    double total = 0;
    for (size_t i = 0; i < events.size(); ++i)
        if (const std::string cat = events[i].value("cat", "");
            (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") &&
            events[i].contains("dur")) {
            kernels.push_back(i);
            total += events[i]["dur"].get<double>();
        }
    std::stable_sort(kernels.begin(), kernels.end(), [&](size_t a, size_t b) {
        return events[a]["ts"].get<double>() < events[b]["ts"].get<double>();
    });
    std::set<int64_t> ops, correlations;
    *cutUs = 0;
    for (size_t i : kernels) {
        if (*cutUs >= share * total)
            break;
        *cutUs += events[i]["dur"].get<double>();
        json& args = events[i]["args"];
        if (args.contains("External id"))
            ops.insert(args["External id"].get<int64_t>());
        if (args.contains("correlation"))
            correlations.insert(args["correlation"].get<int64_t>());
        args.erase("External id");
        args.erase("correlation");
    }
    json kept = json::array();
    for (json& e : events) {
        const json args = e.value("args", json::object());
        const std::string cat = e.value("cat", "");
        const bool launchedThem =
            (cat == "cpu_op" && args.contains("External id") &&
             ops.count(args["External id"].get<int64_t>())) ||
            ((cat == "cuda_runtime" || cat == "ac2g") && args.contains("correlation") &&
             correlations.count(args["correlation"].get<int64_t>())) ||
            (cat == "ac2g" && e.contains("id") && e["id"].is_number_integer() &&
             correlations.count(e["id"].get<int64_t>()));
        if (!launchedThem)
            kept.push_back(std::move(e));
    }
    events = std::move(kept);
    return trace;
}

// Each kernel's time per (operator, input shapes): the links the breakdown, headroom and
// extraction follow.
std::map<std::string, double> shapedTime(const Workload& w) {
    std::map<std::string, double> out;
    for (const KernelStats& k : w.kernels)
        for (const ShapedCall& c : k.shapedCalls)
            out[k.name + " | " + c.op + " | " + c.signature] += c.totalUs;
    return out;
}

struct TwinCase {
    const char* trace;
    double linkedAtLeast;  // of the missed time, linked through a twin
};

class KinetoTwins : public ::testing::TestWithParam<TwinCase> {};

}  // namespace

TEST_P(KinetoTwins, MissedLaunchesAreLinkedAsTheirTwinsAreAndSaidSo) {
    const std::string original = std::string(REACH_DATASETS) + "/profiles/" + GetParam().trace;
    const Workload truth = readProfile(original);
    ASSERT_EQ(truth.twinLinkedUs, 0.0) << "a trace that links everything needs no twin";
    double missedUs = 0;
    const json cut = missLaunches(readGz(original), 0.3, &missedUs);
    // A folder of this case's own: ctest runs the cases at once.
    const fs::path dir =
        fs::path(::testing::TempDir()) / ("reach_twins_" + std::to_string(::getpid()) + "_" +
                                          fs::path(GetParam().trace).stem().stem().string());
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "missed_launches.json") << cut.dump();
    const Workload w = readProfile((dir / "missed_launches.json").string());
    // A project keeps what was linked that way (schema 8).
    {
        ProjectStore store = ProjectStore::open((dir / "twins.reach").string());
        const int64_t id = store.importWorkload(w);
        EXPECT_DOUBLE_EQ(store.loadWorkload(id).twinLinkedUs, w.twinLinkedUs);
    }
    fs::remove_all(dir);

    EXPECT_NEAR(w.gpuTimeUs, truth.gpuTimeUs, 1e-6 * truth.gpuTimeUs);
    EXPECT_GE(w.twinLinkedUs, GetParam().linkedAtLeast * missedUs)
        << w.twinLinkedUs << " of " << missedUs << " us linked through a twin";
    EXPECT_LE(w.twinLinkedUs, missedUs * (1 + 1e-9));
    // Every link made is the one the original trace had: the time per (kernel, operator,
    // shapes) differs from the truth by at most what stayed unlinked.
    const auto want = shapedTime(truth), got = shapedTime(w);
    double wrong = 0;
    for (const auto& [key, us] : got) {
        auto it = want.find(key);
        wrong += std::max(0.0, us - (it == want.end() ? 0.0 : it->second));
    }
    EXPECT_LE(wrong, 1e-3 * missedUs) << wrong << " us linked to a call the original did not have";
}

INSTANTIATE_TEST_SUITE_P(
    RealTraces, KinetoTwins,
    // Measured: 94.8 %, 100 % and 92.5 % of the missed time linked; what stays unlinked is a
    // GEMM whose launches of one shape and neighbours come from calls of different signatures.
    ::testing::Values(TwinCase{"h200-shapes/resnet50_inference.json.gz", 0.93},
                      TwinCase{"h200-shapes/dlrm_inference.json.gz", 0.99},
                      TwinCase{"h200-extract/encoder12_training.json.gz", 0.9}),
    [](const ::testing::TestParamInfo<TwinCase>& info) {
        std::string n = fs::path(info.param.trace).stem().stem().string();
        std::replace_if(
            n.begin(), n.end(), [](char c) { return !std::isalnum((unsigned char)c); }, '_');
        return n;
    });

// A twin that names two calls is no twin: a kernel launched by two different operators with the
// same shape and neighbours stays unlinked rather than be given either. Nothing linked at all
// (no linked part to learn from) stays as it was.
TEST(KinetoTwins, AmbiguousOrNothingToLearnFromStaysUnlinked) {
    // Each launch on a stream of its own: no neighbours, so the kernel and shape alone decide.
    auto kernelAt = [](double ts, int64_t ext, int64_t corr) {
        json args = {
            {"stream", 7 + int(ts)}, {"device", 0}, {"grid", {1, 1, 1}}, {"block", {128, 1, 1}}};
        if (ext >= 0)
            args["External id"] = ext;
        if (corr >= 0)
            args["correlation"] = corr;
        return json{{"ph", "X"}, {"cat", "kernel"}, {"name", "k"}, {"pid", 0},
                    {"tid", 7},  {"ts", ts},        {"dur", 10.0}, {"args", args}};
    };
    auto op = [](const char* name, double ts, int64_t ext) {
        return json{
            {"ph", "X"}, {"cat", "cpu_op"}, {"name", name}, {"pid", 1},
            {"tid", 1},  {"ts", ts},        {"dur", 5.0},   {"args", {{"External id", ext}}}};
    };
    const fs::path path = fs::path(::testing::TempDir()) /
                          ("reach_twins_ambiguous_" + std::to_string(::getpid()) + ".json");
    // One unlinked launch of k; its linked twins (same shape, no neighbours) were launched by
    // aten::relu once and aten::gelu once.
    json trace = {{"traceEvents",
                   {kernelAt(0, -1, -1), op("aten::relu", 100, 1), kernelAt(110, 1, -1),
                    op("aten::gelu", 200, 2), kernelAt(210, 2, -1)}}};
    std::ofstream(path) << trace.dump();
    Workload w = readProfile(path.string());
    EXPECT_EQ(w.twinLinkedUs, 0.0);
    ASSERT_EQ(w.kernels.size(), 1u);
    EXPECT_NEAR(w.kernels[0].linkedUs(), 20.0, 1e-9);
    // Both twins from aten::relu: linked, and said.
    trace["traceEvents"][3]["name"] = "aten::relu";
    std::ofstream(path) << trace.dump();
    w = readProfile(path.string());
    EXPECT_NEAR(w.twinLinkedUs, 10.0, 1e-9);
    EXPECT_NEAR(w.kernels[0].linkedUs(), 30.0, 1e-9);
    // No links anywhere: nothing to learn from.
    trace = {{"traceEvents", {kernelAt(0, -1, -1), kernelAt(110, -1, -1)}}};
    std::ofstream(path) << trace.dump();
    w = readProfile(path.string());
    EXPECT_EQ(w.twinLinkedUs, 0.0);
    fs::remove(path);
}

}  // namespace reach_test_kinetotwins_test
