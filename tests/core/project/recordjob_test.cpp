// The verify job of a record (core/project/recordjob.h): paths resolved where Reach may run them,
// and refused when a record file names something elsewhere.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/project/recordjob.h"

namespace reach_test_recordjob_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

struct Layout {
    fs::path root, records, outside;
    Layout() {
        root = fs::temp_directory_path() /
               ("reach_recordjob_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root);
        records = root / "run";
        outside = root / "elsewhere";
        fs::create_directories(records / "problems");
        fs::create_directories(records / "kernels");
        fs::create_directories(outside);
        touch(records / "problems" / "softmax_1.json");
        touch(records / "kernels" / "k.cu");
        touch(outside / "evil.cu");
        touch(outside / "softmax_1.json");
    }
    ~Layout() { fs::remove_all(root); }
    static void touch(const fs::path& p) { std::ofstream(p) << "x"; }
    EvalRecord record(const std::string& artifact, const std::string& problem = "softmax_1") const {
        EvalRecord r;
        r.problemId = problem;
        r.problemName = problem;
        r.artifactPath = artifact;
        r.source = (records / "records.jsonl").string();
        return r;
    }
};

// The records' folder as the user named it (the records file's, or the project's).
RecordJobOptions noResources(const Layout& l) {
    RecordJobOptions o;
    o.resourceDir = "/nonexistent-reach-resources";
    o.recordDir = l.records.string();
    return o;
}

}  // namespace

TEST(RecordJob, ResolvesTheCandidateAndProblemBesideTheRecords) {
    Layout l;
    std::string why;
    EvalRecord r = l.record("kernels/k.cu");
    r.baselineEagerUs = 123.5;
    const auto job = jobForRecord(r, noResources(l), &why);
    ASSERT_TRUE(job) << why;
    EXPECT_EQ(fs::path(job->request.candidateFile), fs::canonical(l.records / "kernels/k.cu"));
    EXPECT_EQ(fs::path(job->request.problemFile),
              fs::canonical(l.records / "problems/softmax_1.json"));
    EXPECT_FALSE(job->kernelBenchFormat);
    ASSERT_EQ(job->request.extraArgs.size(), 2u);  // the record's own baseline competes
    EXPECT_EQ(job->request.extraArgs[0], "--baseline-us");
}

TEST(RecordJob, RefusesPathsThatLeaveTheRecordsFolder) {
    Layout l;
    std::string why;
    EXPECT_FALSE(jobForRecord(l.record("../elsewhere/evil.cu"), noResources(l), &why));
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
    EXPECT_FALSE(jobForRecord(l.record((l.outside / "evil.cu").string()), noResources(l), &why));
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
    // A symbolic link inside the folder that points out of it is outside too.
    fs::create_symlink(l.outside / "evil.cu", l.records / "kernels" / "link.cu");
    EXPECT_FALSE(jobForRecord(l.record("kernels/link.cu"), noResources(l), &why));
    // A problem id that is a path is not looked up at all.
    EXPECT_FALSE(
        jobForRecord(l.record("kernels/k.cu", "../elsewhere/softmax_1"), noResources(l), &why));
    EXPECT_NE(why.find("plain file name"), std::string::npos) << why;
    // A folder the user chose is trusted.
    RecordJobOptions trusting = noResources(l);
    trusting.trustedDirs = {l.outside.string()};
    EXPECT_TRUE(jobForRecord(l.record("../elsewhere/evil.cu"), trusting, &why)) << why;
}

TEST(RecordJob, MissingFilesSaySo) {
    Layout l;
    std::string why;
    EXPECT_FALSE(jobForRecord(l.record(""), noResources(l), &why));
    EXPECT_NE(why.find("artifact_path"), std::string::npos);
    EXPECT_FALSE(jobForRecord(l.record("kernels/none.cu"), noResources(l), &why));
    EXPECT_NE(why.find("not found"), std::string::npos) << why;
    EXPECT_FALSE(jobForRecord(l.record("kernels/k.cu", "other_problem"), noResources(l), &why));
    EXPECT_NE(why.find("other_problem.json"), std::string::npos) << why;
}

TEST(RecordJob, ReachsOwnResourcesAndAKernelBenchCheckout) {
    Layout l;
    // reach-verify names Reach's own files "resources/...": they resolve in the resources dir.
    const fs::path res = l.root / "resources";
    fs::create_directories(res / "controls/positive");
    fs::create_directories(res / "problems");
    Layout::touch(res / "controls/positive/add.cu");
    Layout::touch(res / "problems/add_1.json");
    RecordJobOptions o;
    o.resourceDir = res.string();
    std::string why;
    EvalRecord r = l.record("resources/controls/positive/add.cu", "add_1");
    r.source = (l.records / "raw" / "add_1__naive.json").string();
    // The problem, named by the record's problem id, is Reach's own too.
    const auto job = jobForRecord(r, o, &why);
    ASSERT_TRUE(job) << why;
    EXPECT_EQ(fs::path(job->request.candidateFile),
              fs::canonical(res / "controls/positive/add.cu"));
    EXPECT_EQ(fs::path(job->request.problemFile), fs::canonical(res / "problems/add_1.json"));

    // A KernelBench record: the candidate beside eval_results.json, the problem in the checkout.
    const fs::path kb = l.root / "KernelBench";
    fs::create_directories(kb / "KernelBench/level1");
    Layout::touch(kb / "KernelBench/level1/23_Softmax.py");
    Layout::touch(l.records / "level_1_problem_23_sample_0_kernel.py");
    EvalRecord k = l.record("level_1_problem_23_sample_0_kernel.py", "23");
    k.problemName = "23_Softmax";
    k.level = 1;
    RecordJobOptions kbo = noResources(l);
    kbo.kernelBenchDir = kb.string();
    const auto kbJob = jobForRecord(k, kbo, &why);
    ASSERT_TRUE(kbJob) << why;
    EXPECT_TRUE(kbJob->kernelBenchFormat);
    EXPECT_EQ(fs::path(kbJob->request.problemFile),
              fs::canonical(kb / "KernelBench/level1/23_Softmax.py"));
    EXPECT_FALSE(jobForRecord(k, noResources(l), &why));  // without the checkout: said so
    EXPECT_NE(why.find("KernelBench folder"), std::string::npos) << why;
}

TEST(RecordJob, AKernelBenchRecordIsReverifiedInItsOwnPrecision) {
    Layout l;
    Layout::touch(l.records / "problems" / "23_Softmax.py");
    Layout::touch(l.records / "kernels" / "k.py");
    auto args = [&](const std::string& dtype) {
        EvalRecord r = l.record("kernels/k.py", "23_Softmax");
        r.dtype = dtype;
        std::string why;
        const auto job = jobForRecord(r, noResources(l), &why);
        EXPECT_TRUE(job) << why;
        return job ? job->request.extraArgs : std::vector<std::string>{};
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(args("bf16"), (V{"--precision", "bf16"}));
    EXPECT_EQ(args("fp16"), (V{"--precision", "fp16"}));
    EXPECT_EQ(args("fp32"), (V{"--precision", "fp32"}));
    EXPECT_EQ(args(""), V{});      // unknown: the problem's own
    EXPECT_EQ(args("int8"), V{});  // not a precision the worker takes
    // A C++ record: its problem file names the dtype.
    EvalRecord c = l.record("kernels/k.cu");
    c.dtype = "bf16";
    std::string why;
    EXPECT_EQ(jobForRecord(c, noResources(l), &why)->request.extraArgs, V{});
}

// Issue 37, item 5: a record stored in a stranger's project names its own source; the folder
// trusted is the one the user named (the project's), never the one the source names.
TEST(RecordJob, AStoredSourceNeverChoosesTheTrustedFolder) {
    Layout l;
    std::string why;
    // "/records.jsonl" would make every file on the machine "beside the record".
    EvalRecord r = l.record((l.outside / "evil.cu").string());
    r.source = "/records.jsonl";
    EXPECT_FALSE(jobForRecord(r, noResources(l), &why));
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
    r = l.record(l.outside.lexically_relative("/").string() + "/evil.cu");  // relative to "/"
    r.source = "/records.jsonl";
    EXPECT_FALSE(jobForRecord(r, noResources(l), &why));
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
    // The folder Reach runs in, through /proc: outside too (links are resolved first).
    const fs::path cwd = fs::current_path();
    fs::current_path(l.outside);
    r = l.record("proc/self/cwd/evil.cu");
    r.source = "/records.jsonl";
    EXPECT_FALSE(jobForRecord(r, noResources(l), &why));
    fs::current_path(cwd);
    // With no folder named by the user, nothing beside the record is trusted at all.
    RecordJobOptions none = noResources(l);
    none.recordDir.clear();
    EXPECT_FALSE(jobForRecord(l.record("kernels/k.cu"), none, &why));
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
    // The stored source is still a place to look, inside the trusted folders: a project kept
    // beside its records resolves them.
    RecordJobOptions project = noResources(l);
    project.recordDir = l.root.string();
    EXPECT_TRUE(jobForRecord(l.record("kernels/k.cu"), project, &why)) << why;
}

TEST(RecordJob, OneRuleForTheLimits) {
    VerifyProcessRequest cpp, kb, kbGiven;
    setJobTimeout(cpp, false, std::nullopt);
    EXPECT_EQ(cpp.timeoutSeconds, kVerifyTimeoutSeconds);
    EXPECT_TRUE(cpp.extraArgs.empty());
    setJobTimeout(kb, true, std::nullopt);
    EXPECT_EQ(kb.timeoutSeconds, kKernelBenchVerifyTimeoutSeconds);
    EXPECT_EQ(kb.extraArgs, (std::vector<std::string>{"--worker-timeout", "810"}));
    setJobTimeout(kbGiven, true, 100.0);
    EXPECT_EQ(kbGiven.timeoutSeconds, 100.0);
    EXPECT_EQ(kbGiven.extraArgs, (std::vector<std::string>{"--worker-timeout", "45"}));
}

}  // namespace reach_test_recordjob_test
