#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/verify/childprocess.h"
#include "core/verify/controlset.h"
#include "core/verify/verification.h"
#include "core/verify/verifyprocess.h"

namespace reach_test_verify_model_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(VerifyModel, JsonRoundTrip) {
    VerificationResult r;
    r.verdict = verdict::kFail;
    r.reasons = {"written_fraction: 0.003"};
    r.problemId = "p";
    r.op = "softmax";
    r.dtype = "bf16";
    r.seed = 3;
    r.compile.status = "cached";
    r.hasMetrics = true;
    r.metrics.relFrobenius = std::nan("");
    r.metrics.writtenFraction = 0.003;
    r.metrics.totalCount = 1000;
    r.metrics.writtenCount = 3;
    r.metrics.kernelbenchAllclose = true;
    r.metrics.invariants.push_back({"invariant:row_sum", 383, 0.02, false, "rows"});
    r.checks.push_back({"written_fraction", 0.003, 1, false, "x"});
    r.timing = TimingStats::fromSamples({5, 1, 3, 2, 4});
    r.baseline = BaselineInfo{"reach_kernel", "baselines/softmax.cu", r.timing, 0, 3, ""};
    r.speedup = 1.0;
    r.roofline = Roofline{1e6, 1e6, 4000, 989, 0.25, false, 4000, "copy"};
    r.device.available = true;
    r.device.name = "NVIDIA H200";
    r.phaseSeconds = {{"setup", 1.5}, {"timing", 0.25}};
    nlohmann::json j = r.toJson();
    EXPECT_TRUE(j["metrics"]["rel_frobenius"].is_null());  // NaN is written as null
    EXPECT_DOUBLE_EQ(j["phase_seconds"]["setup"].get<double>(), 1.5);
    VerificationResult back = VerificationResult::fromJson(j, "r.json");
    EXPECT_EQ(back.toJson(), j);
    EXPECT_EQ(back.phaseSeconds, r.phaseSeconds);
    EXPECT_TRUE(std::isnan(back.metrics.relFrobenius));
    EXPECT_DOUBLE_EQ(back.timing->medianUs, 3);
    EXPECT_DOUBLE_EQ(back.timing->p10Us, 1);  // nearest rank on 5 samples
    EXPECT_DOUBLE_EQ(back.timing->p90Us, 5);
    EXPECT_EQ(back.metrics.invariants.at(0).value, 383);
}

TEST(VerifyModel, TimingStatsMedianOfEvenCount) {
    TimingStats t = TimingStats::fromSamples({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(t.medianUs, 2.5);
    EXPECT_DOUBLE_EQ(t.minUs, 1);
    EXPECT_DOUBLE_EQ(t.maxUs, 4);
    EXPECT_DOUBLE_EQ(t.meanUs, 2.5);
    EXPECT_EQ(t.reps, 4);
}

TEST(VerifyModel, FromJsonRejectsOtherDocuments) {
    EXPECT_THROW(VerificationResult::fromJson(nlohmann::json::array(), "x.json"), InputError);
    EXPECT_THROW(VerificationResult::fromJson({{"op", "softmax"}}, "x.json"), InputError);
    EXPECT_THROW(VerificationResult::fromJson({{"verdict", "pass"}, {"speedup", "fast"}}, "x.json"),
                 InputError);
    EXPECT_THROW(VerificationResult::fromJson(
                     {{"verdict", "pass"}, {"phase_seconds", {{"setup", "long"}}}}, "x.json"),
                 InputError);
}

TEST(VerifyChild, ExitCodesSignalsOutputAndTimeout) {
    ChildResult ok = runChild({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
    EXPECT_TRUE(ok.started);
    EXPECT_EQ(ok.exitCode, 3);
    EXPECT_EQ(ok.out, "out\n");
    EXPECT_EQ(ok.err, "err\n");
    ChildResult seg = runChild({"/bin/sh", "-c", "kill -SEGV $$"}, 10);
    EXPECT_EQ(seg.termSignal, SIGSEGV);
    ChildResult hang = runChild({"/bin/sh", "-c", "sleep 30"}, 0.5);
    EXPECT_TRUE(hang.timedOut);
    EXPECT_LT(hang.seconds, 5);
    ChildResult missing = runChild({"/nonexistent/reach-verify"}, 5);
    EXPECT_FALSE(missing.started);
    EXPECT_FALSE(missing.error.empty());
}

namespace {
// A stand-in verifier executable with a given shell body (the parent logic under test is real).
std::string script(const std::string& name, const std::string& body) {
    std::string path = ::testing::TempDir() + "/" + name + std::to_string(getpid()) + ".sh";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}
VerificationResult runFake(const std::string& body, double timeout = 10) {
    VerifyProcessRequest req;
    req.verifier = script("v", body);
    req.problemFile = "p.json";
    req.candidateFile = "c.cu";
    req.timeoutSeconds = timeout;
    return runVerifierProcess(req);
}
}  // namespace

TEST(VerifyChild, ParentTurnsEveryFailureIntoAVerdict) {
    EXPECT_EQ(runFake("echo 'partial {' ; kill -SEGV $$").verdict, verdict::kCrashed);
    VerificationResult hang = runFake("sleep 30", 0.5);
    EXPECT_EQ(hang.verdict, verdict::kTimeout);
    EXPECT_EQ(runFake("echo 'bad problem' >&2; exit 2").verdict, verdict::kError);
    VerificationResult abort = runFake("echo 'CUDA error: illegal address' >&2; exit 134");
    EXPECT_EQ(abort.verdict, verdict::kCrashed);
    EXPECT_NE(abort.log.find("illegal address"), std::string::npos);
    VerificationResult json = runFake(R"(echo '{"verdict":"fail","reasons":["x"]}'; exit 1)");
    EXPECT_EQ(json.verdict, verdict::kFail);
    EXPECT_EQ(json.exitCode, 1);
}

TEST(VerifyControls, ShippedManifestIsComplete) {
    std::string res = std::string(REACH_SOURCE_DIR) + "/resources";
    auto controls = loadControls(res + "/controls/controls.json", res);
    std::set<std::string> positiveOps, kinds;
    for (const auto& c : controls) {
        EXPECT_TRUE(std::filesystem::exists(c.candidate)) << c.candidate;
        EXPECT_TRUE(std::filesystem::exists(c.problem)) << c.problem;
        kinds.insert(c.kind);
        if (c.kind == "positive")
            positiveOps.insert(c.name);
        if (c.kind == "negative") {
            EXPECT_FALSE(c.expectChecks.empty()) << c.name;
        }
    }
    EXPECT_GE(positiveOps.size(), 14u);
    EXPECT_EQ(kinds, (std::set<std::string>{"baseline", "fault", "negative", "positive"}));
}

TEST(VerifyControls, JudgeNeedsTheIntendedReason) {
    ControlSpec c;
    c.expectVerdict = "fail";
    c.expectChecks = {"written_fraction"};
    VerificationResult r;
    r.verdict = "fail";
    r.checks = {{"written_fraction", 0.003, 1, false, ""}, {"rel_frobenius", 1, 0.01, false, ""}};
    EXPECT_TRUE(judgeControl(c, r).asDesigned);
    r.checks[0].passed = true;  // failed, but for another reason
    EXPECT_FALSE(judgeControl(c, r).asDesigned);
    r.verdict = "pass";
    EXPECT_FALSE(judgeControl(c, r).asDesigned);
    ControlSpec hang;
    hang.expectVerdict = "timeout";
    VerificationResult t;
    t.verdict = "timeout";
    EXPECT_TRUE(judgeControl(hang, t).asDesigned);
}

TEST(VerifyResources, EnvironmentVariableWinsAndMissingDirsAreSkipped) {
    std::string res = std::string(REACH_SOURCE_DIR) + "/resources";
    setenv("REACH_RESOURCES", "/nonexistent/reach", 1);
    // A wrong $REACH_RESOURCES is skipped; the build/source tree fallbacks still find it.
    EXPECT_EQ(findResourceDir(), std::filesystem::weakly_canonical(res).string());
    setenv("REACH_RESOURCES", res.c_str(), 1);
    EXPECT_EQ(resourceDirCandidates().front(), res);
    EXPECT_EQ(findResourceDir(), std::filesystem::weakly_canonical(res).string());
    unsetenv("REACH_RESOURCES");
}

}  // namespace reach_test_verify_model_test
