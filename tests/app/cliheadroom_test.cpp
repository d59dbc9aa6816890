// reach-cli headroom: JSON and text on the shaped H200 workloads, the study's projection beside
// the addressable headroom, --gpu, and bad usage; run as a process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "clirunner.h"

namespace reach_test_cliheadroom_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {

const std::string kResnet = dataset("profiles/h200-shapes/resnet50_inference.json.gz");
const std::string kDlrm = dataset("profiles/h200-shapes/dlrm_inference.json.gz");

}  // namespace

TEST(CliHeadroom, JsonPerWorkload) {
    const auto r =
        runCli({"headroom", kResnet, kDlrm, "--json", "--win-rate", "0.417", "--median", "1.552"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    ASSERT_EQ(doc["workloads"].size(), 2u);
    for (const json& w : doc["workloads"]) {
        EXPECT_EQ(w["gpu"]["name"], "H200 SXM 141GB");
        EXPECT_GE(w["coverage"].get<double>(), 0.9);
        const double head = w["headroom_share_of_gpu_time"].get<double>();
        EXPECT_GT(head, 0);
        EXPECT_LT(head, 1);
        EXPECT_NEAR(w["sol_bound_speedup"].get<double>(), 1 / (1 - head), 1e-4);
        EXPECT_TRUE(w["headroom_share_of_wall_clock"].is_number());
        // The categories' headroom adds up to the workload's.
        double sum = 0;
        for (const auto& [key, c] : w["categories"].items())
            sum += c["headroom_share_of_gpu_time"].get<double>();
        EXPECT_NEAR(sum, head, 1e-5);
        // The study's projection beside it: A x w x (1 - 1/m) with the breakdown's A.
        const json& p = w["study_projection"];
        const double A = p["addressable_share"].get<double>();
        EXPECT_NEAR(p["saved_share_of_gpu_time"].get<double>(), A * 0.417 * (1 - 1 / 1.552), 1e-9);
        EXPECT_NEAR(A, w["categories"]["addressable"]["share_of_gpu_time"].get<double>(), 1e-5);
        ASSERT_FALSE(w["kernels"].empty());
        const json& k = w["kernels"][0];
        for (const char* key : {"achieved_gbs", "achieved_tflops", "intensity_flop_per_byte",
                                "fraction_of_sol", "sol_us", "headroom_us"})
            EXPECT_TRUE(k[key].is_number()) << key;
        EXPECT_LE(k["fraction_of_sol"].get<double>(), 1.0);
    }
}

// A project keeps everything its traces gave (issue 40: a saved project lost the recorded shapes,
// and headroom then said the traces had none): the same coverage, headroom and roofline points
// from the project as from the files, and an older project's loss said as such.
TEST(CliHeadroom, AProjectGivesWhatItsTracesGive) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    const auto imp = runCli({"import", kResnet, kDlrm, "--project", project});
    ASSERT_EQ(imp.status, 0) << imp.err;
    const auto files = runCli({"headroom", kResnet, kDlrm, "--json"});
    const auto saved = runCli({"headroom", "--project", project, "--json"});
    ASSERT_EQ(files.status, 0) << files.err;
    ASSERT_EQ(saved.status, 0) << saved.err;
    const json a = json::parse(files.out), b = json::parse(saved.out);
    ASSERT_EQ(a["workloads"].size(), 2u);
    ASSERT_EQ(b["workloads"].size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const json &fa = a["workloads"][i], fb = b["workloads"][i];
        EXPECT_TRUE(fb["has_shapes"].get<bool>());
        EXPECT_NEAR(fb["coverage"].get<double>(), fa["coverage"].get<double>(), 1e-9);
        EXPECT_NEAR(fb["headroom_share_of_gpu_time"].get<double>(),
                    fa["headroom_share_of_gpu_time"].get<double>(), 1e-9);
        EXPECT_EQ(fb["kernels"].size(), fa["kernels"].size());
    }

    // The same project as an older Reach wrote it (schema 6: no shaped calls kept): headroom
    // says the project lost them, not that the trace never had them.
    {
        const std::string old = dir.path("old.reach");
        ASSERT_EQ(runCli({"import", kDlrm, "--project", old}).status, 0);
        const std::string sql =
            "DELETE FROM kernel_shaped_calls; UPDATE workloads SET shapes_kept = 0;";
        ASSERT_EQ(std::system(("sqlite3 '" + old + "' '" + sql + "'").c_str()), 0)
            << "sqlite3 missing?";
        const auto r = runCli({"headroom", "--project", old});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find("saved by an older Reach"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("record_shapes=False"), std::string::npos) << r.out;
    }
}

TEST(CliHeadroom, TextAndGpuOverride) {
    const auto r = runCli({"headroom", kDlrm, "--gpu", "B200"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("B200 (NVIDIA H200)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("top kernels by headroom"), std::string::npos);
    EXPECT_NE(r.out.find("no estimate"), std::string::npos);  // aten::index has no formula
    EXPECT_NE(r.out.find("aten::index"), std::string::npos);
    EXPECT_NE(r.out.find("no projection beside it"), std::string::npos);
}

// --gpu-info: the local row from a saved `reach-verify --device-info --bandwidth` (the H200's);
// the same workload has less headroom against the measured copy than against the datasheet.
TEST(CliHeadroom, TheLocalRowFromASavedDeviceInfo) {
    const std::string info = dataset("evaluations/h200/device_info.json");
    const auto local = runCli({"headroom", kResnet, "--gpu-info", info, "--json"});
    ASSERT_EQ(local.status, 0) << local.err;
    const auto sheet = runCli({"headroom", kResnet, "--json"});
    ASSERT_EQ(sheet.status, 0) << sheet.err;
    const json l = json::parse(local.out)["workloads"][0];
    const json d = json::parse(sheet.out)["workloads"][0];
    EXPECT_EQ(l["gpu"]["name"], "H200 SXM 141GB, measured");
    EXPECT_LT(l["gpu"]["dram_gbs"].get<double>(), 4800);
    EXPECT_LT(l["headroom_share_of_gpu_time"].get<double>(),
              d["headroom_share_of_gpu_time"].get<double>());

    const auto text = runCli({"headroom", kResnet, "--gpu-info", info});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("H200 SXM 141GB, measured"), std::string::npos) << text.out;

    auto r = runCli({"headroom", kResnet, "--gpu-info", kResnet});  // not a device-info JSON
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(kResnet), std::string::npos) << r.err;
    r = runCli({"headroom", kResnet, "--gpu-info", info, "--gpu", "H200"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("give one"), std::string::npos) << r.err;
}

TEST(CliHeadroom, BadUsage) {
    auto r = runCli({"headroom", kDlrm, "--gpu", "H100"});  // SXM or PCIe
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--gpu 'H100'"), std::string::npos) << r.err;
    r = runCli({"headroom", kDlrm, "--win-rate", "0.4"});
    EXPECT_EQ(r.status, 2);
    r = runCli({"headroom", dataset("profiles/h200-shapes/missing.json.gz")});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.errLines().size(), 1u);
}

}  // namespace reach_test_cliheadroom_test

// A launch the trace missed, linked through its twin (issue 41): headroom and breakdown say how
// much time was linked that way and how much stays unlinked (tests/data/kineto/link_correlation
// .json: one add kernel's correlation names no launch call; its twin's operator is aten::linear).
TEST(CliHeadroomLinks, TimeLinkedThroughATwinIsSaidWithTheUnlinkedRest) {
    const std::string trace = std::string(REACH_TEST_DATA) + "/kineto/link_correlation.json";
    auto r = reach::test::runCli({"headroom", trace, "--gpu", "H100 SXM 80GB"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("  links     3.7 % of GPU time linked to its operator through a twin "
                         "(launches the trace missed); 3.7 % unlinked"),
              std::string::npos)
        << r.out;
    r = reach::test::runCli({"breakdown", trace});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("3.7 % of it through a twin"), std::string::npos) << r.out;
    r = reach::test::runCli({"breakdown", trace, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"twin_linked_share\": 0.036753"), std::string::npos) << r.out;
}
