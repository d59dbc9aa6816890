// Every shipped control over 5 seeds: positives (and the Reach baselines) pass, negatives fail
// for the reason they were built to trip, faults give their verdict. Each run is a separate
// reach-verify process, as in production. Writes a table to $REACH_GPU_TABLE when set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/headroom/gpus.h"
#include "core/headroom/headroomjson.h"
#include "core/verify/childprocess.h"
#include "core/verify/controlset.h"
#include "core/verify/verifyprocess.h"
#include "gpu/verifyjob.h"

namespace reach_test_verify_controls_gpu_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

// $REACH_RESOURCES when the checkout sits elsewhere than where it was built (a GPU machine).
const std::string kResources = std::getenv("REACH_RESOURCES")
                                   ? std::string(std::getenv("REACH_RESOURCES"))
                                   : std::string(REACH_SOURCE_DIR) + "/resources";

std::vector<ControlSpec> controls() {
    return loadControls(kResources + "/controls/controls.json", kResources);
}

std::vector<std::string> controlNames() {
    std::vector<std::string> n;
    for (const auto& c : controls())
        n.push_back(c.name);
    return n;
}

int seeds() {
    const char* s = std::getenv("REACH_GPU_SEEDS");
    return s ? std::atoi(s) : 5;
}

void appendRow(const std::string& row) {
    static std::mutex mu;
    const char* path = std::getenv("REACH_GPU_TABLE");
    if (!path)
        return;
    std::lock_guard<std::mutex> lock(mu);
    std::ofstream(path, std::ios::app) << row << "\n";
}

}  // namespace

class Control : public ::testing::TestWithParam<std::string> {};

TEST_P(Control, BehavesAsDesignedOverSeeds) {
    DeviceInfo d = queryDevice();
    if (!d.available)
        GTEST_SKIP() << "no GPU: " << d.reason;
    ControlSpec spec;
    for (const auto& c : controls())
        if (c.name == GetParam())
            spec = c;
    const char* exe = std::getenv("REACH_VERIFY");
    for (int s = 1; s <= seeds(); ++s) {
        VerifyProcessRequest req;
        req.verifier = exe ? exe : REACH_VERIFY_EXE;
        req.problemFile = spec.problem;
        req.candidateFile = spec.candidate;
        req.extraArgs = {"--seed", std::to_string(s), "--reps", "10", "--resources", kResources};
        req.timeoutSeconds = spec.timeoutSeconds;
        VerificationResult r = runVerifierProcess(req);
        ControlJudgement j = judgeControl(spec, r);
        std::string failed;
        for (const auto& c : r.checks)
            if (!c.passed)
                failed += (failed.empty() ? "" : ",") + c.name;
        appendRow("| " + spec.name + " | " + spec.kind + " | " + std::to_string(s) + " | " +
                  spec.expectVerdict + " | " + r.verdict + " | " + (failed.empty() ? "-" : failed) +
                  " | " + (j.asDesigned ? "yes" : "NO") + " |");
        EXPECT_TRUE(j.asDesigned) << spec.name << " seed " << s << ": " << j.why << "\n"
                                  << (r.reasons.empty() ? "" : r.reasons[0]) << "\n"
                                  << r.log.substr(0, 2000);
    }
}

INSTANTIATE_TEST_SUITE_P(Shipped, Control, ::testing::ValuesIn(controlNames()),
                         [](const auto& info) { return info.param; });

TEST(GpuVerify, NoDeviceIsAVerdictNotACrash) {
    // Runs everywhere: without a GPU the job says so; with one, the device is described.
    DeviceInfo d = queryDevice();
    if (d.available) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.l2Bytes, 0);
        EXPECT_EQ(d.arch.rfind("sm_", 0), 0u);
    } else {
        EXPECT_FALSE(d.reason.empty());
        VerifyOptions o;
        o.problemFile = kResources + "/problems/relu_16384x2048_f32.json";
        o.candidateFile = kResources + "/controls/positive/relu.cu";
        o.resourceDir = kResources;
        EXPECT_EQ(runVerifyJob(o).verdict, verdict::kNoGpu);
    }
}

// The local GPU's roofline row (reach-cli headroom --gpu local): the verifier's device and a
// measured copy. On a GPU the copy lands between half the datasheet's bandwidth and all of it
// (the H200 measured 4156 of 4800 GB/s); without one the verifier says so and measures nothing.
TEST(GpuVerify, TheMeasuredCopyBandwidthIsTheLocalRowsDramCeiling) {
    const char* exe = std::getenv("REACH_VERIFY");
    const ChildResult c =
        runChild({exe ? exe : REACH_VERIFY_EXE, "--device-info", "--bandwidth"}, 120);
    ASSERT_TRUE(c.started) << c.error;
    const auto j = tryParseJson(c.out);
    ASSERT_TRUE(j) << c.out << c.err;
    const DeviceInfo d = queryDevice();
    if (!d.available) {
        EXPECT_EQ(c.exitCode, 1);
        EXPECT_FALSE(j->contains("copy_bandwidth_gbs"));
        EXPECT_EQ(measureCopyBandwidthGBs(), 0);
        EXPECT_THROW(gpuFromDeviceInfo(*j, "device.json"), InputError);
        GTEST_SKIP() << "no GPU: " << d.reason;
    }
    ASSERT_EQ(c.exitCode, 0) << c.err;
    const double gbs = j->at("copy_bandwidth_gbs").get<double>();
    std::cout << d.name << ": copy " << gbs << " GB/s\n";
    const GpuSpec* row = gpuForDevice(d.name);
    if (!row)
        GTEST_SKIP() << d.name << " has no row in the GPU table";
    EXPECT_GT(gbs, 0.5 * row->dramGBs);
    EXPECT_LT(gbs, row->dramGBs);
    const GpuSpec local = gpuFromDeviceInfo(*j, "device.json");
    EXPECT_EQ(local.dramGBs, gbs);
    EXPECT_EQ(local.bf16Tflops, row->bf16Tflops);
}

}  // namespace reach_test_verify_controls_gpu_test
