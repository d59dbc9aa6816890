// reach-cli verify --slurm against a real one-node Slurm (scripts/slurm start; label `slurm`):
// a batch of fake-verifier jobs as a job array, one task killed with scancel while it runs, the
// watcher reporting it, the task resubmitted, and every result imported exactly once.
// Skipped, with the reason, when no Slurm answers (scripts/test starts one as root).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "clirunner.h"
#include "core/batch/slurmbatch.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"
#include "core/verify/childprocess.h"

namespace reach_test_clislurm_test {  // unity builds: this file's names stay its own

using namespace reach;
using namespace reach::test;
namespace fs = std::filesystem;

namespace {

std::string slurmDown() {
    const ChildResult ping = runChild({"scontrol", "ping"}, 20);
    if (!ping.started)
        return "no Slurm client (scontrol) on PATH: install slurm-wlm and munge (scripts/deps "
               "--slurm) and run scripts/slurm start as root";
    if (ping.out.find("is UP") == std::string::npos)
        return "slurmctld does not answer (SLURM_CONF=" +
               std::string(getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "") +
               "): run scripts/slurm start as root";
    const ChildResult node = runChild({"sinfo", "-h", "-o", "%T"}, 20);
    if (node.out.find("idle") == std::string::npos && node.out.find("mixed") == std::string::npos &&
        node.out.find("alloc") == std::string::npos)
        return "no Slurm node is up (sinfo: " + node.out + ")";
    return {};
}

std::map<std::string, int> events(const std::string& log, const std::string& event) {
    std::map<std::string, int> n;
    std::istringstream in(readFile(log));
    for (std::string e, c, rest; in >> e >> c && std::getline(in, rest);)
        if (e == event)
            ++n[c];
    return n;
}

std::string taskState(const std::string& jobId, int task) {
    const ChildResult sq = runChild({"squeue", "-h", "-r", "-j", jobId, "-o", "%i|%T|%r"}, 20);
    for (const SlurmTaskState& s : parseSqueue(sq.out))
        if (s.task == task)
            return s.state;
    return "";
}

}  // namespace

TEST(CliSlurm, AScancelledTaskIsReportedResubmittedAndEveryResultImportedOnce) {
    if (const std::string why = slurmDown(); !why.empty())
        GTEST_SKIP() << why;
    // Every node reads the batch directory: here the one node is this machine.
    TempDir dir;
    const std::string log = dir.path("fake.log");
    setenv("REACH_VERIFY", REACH_FAKE_BATCH_VERIFIER, 1);
    setenv("FAKE_VERIFY_LOG", log.c_str(), 1);
    setenv("FAKE_VERIFY_STATE", dir.root().c_str(), 1);
    writeFile(dir.path("problem.json"), "{\"op\": \"softmax\"}\n");
    std::string list;
    for (int i = 0; i < 8; ++i) {
        const std::string c = "c" + std::to_string(i) + ".cu";
        // c2 (task 1's first job) hangs on its first run only: that task is the one cancelled.
        writeFile(dir.path(c), (i == 2 ? "slow_once_ms=120000" : "sleep_ms=100") +
                                   std::string(" id=") + std::to_string(i) + "\n");
        list += "problem.json " + c + "\n";
    }
    writeFile(dir.path("jobs.txt"), list);
    const std::string project = dir.path("p.reach");
    const std::string batchDir = dir.path("slurm");

    const CliResult submit = runCli({"verify", "--batch", dir.path("jobs.txt"), "--project",
                                     project, "--slurm", "--jobs-per-task", "2", "--gres", "gpu:1",
                                     "--time", "10", "--slurm-dir", batchDir, "--no-wait"});
    ASSERT_EQ(submit.status, 0) << submit.out << submit.err;
    ASSERT_NE(submit.out.find("4 array task(s), 2 job(s) each, 8 job(s)"), std::string::npos)
        << submit.out;
    const SlurmBatch batch = SlurmBatch::read(batchDir);
    ASSERT_EQ(batch.submissions.size(), 1u);
    const std::string jobId = batch.submissions[0].jobId;

    // Wait until task 1 runs its hanging job, then cancel that task alone.
    bool running = false;
    for (int i = 0; i < 600 && !running; ++i) {
        running = taskState(jobId, 1) == "RUNNING" && events(log, "start").count("c2.cu");
        if (!running)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(running) << "task 1 never ran; " << readFile("/tmp/reach-slurm/slurmctld.log");
    const ChildResult cancel = runChild({"scancel", jobId + "_1"}, 20);
    ASSERT_EQ(cancel.exitCode, 0) << cancel.err;

    const CliResult watched =
        runCli({"verify", "--slurm-watch", batchDir, "--project", project, "--poll", "0.5"});
    EXPECT_EQ(watched.status, 1) << watched.out << watched.err;
    EXPECT_NE(watched.out.find("task 1 (Slurm job " + jobId + "_1): CANCELLED"), std::string::npos)
        << watched.out;
    EXPECT_NE(watched.out.find("2 of 2 jobs without a result"), std::string::npos) << watched.out;
    EXPECT_NE(watched.out.find("--slurm-resubmit " + batch.dir), std::string::npos) << watched.out;
    EXPECT_NE(watched.out.find("6 of 8 jobs have results, 6 imported"), std::string::npos)
        << watched.out;

    const CliResult resubmitted =
        runCli({"verify", "--slurm-resubmit", batchDir, "--project", project, "--poll", "0.5"});
    EXPECT_EQ(resubmitted.status, 0) << resubmitted.out << resubmitted.err;
    EXPECT_NE(resubmitted.out.find("resubmitted 1 task(s)"), std::string::npos) << resubmitted.out;
    EXPECT_NE(resubmitted.out.find("(1)"), std::string::npos) << resubmitted.out;  // --array=1
    EXPECT_NE(resubmitted.out.find("8 of 8 jobs have results, 2 imported"), std::string::npos)
        << resubmitted.out;

    // Watching again imports nothing more: each result is in the project once.
    const CliResult again =
        runCli({"verify", "--slurm-watch", batchDir, "--project", project, "--poll", "0.5"});
    EXPECT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("0 imported"), std::string::npos) << again.out;
    ProjectStore store = ProjectStore::open(project, ProjectStore::Mode::MustExist);
    const auto rows = loadVerifications(store);
    EXPECT_EQ(rows.size(), 8u);
    std::set<std::string> tags, candidates;
    for (const StoredVerification& v : rows) {
        tags.insert(v.batch);
        candidates.insert(v.candidateHash);
        EXPECT_EQ(v.verdict, "pass");
        // Each result names the GPU Slurm gave its task (--gres gpu:1: CUDA_VISIBLE_DEVICES).
        ASSERT_FALSE(v.gpuIndex.empty());
        EXPECT_EQ(v.deviceUuid, "GPU-fa4e0000-0000-0000-0000-00000000000" + v.gpuIndex);
    }
    EXPECT_EQ(tags.size(), 8u);
    EXPECT_EQ(candidates.size(), 8u);
    // The cancelled job ran again; nothing that finished ran twice.
    for (const auto& [c, n] : events(log, "run"))
        EXPECT_EQ(n, 1) << c;
    EXPECT_EQ(events(log, "start")["c2.cu"], 2);
    EXPECT_EQ(events(log, "run").size(), 8u);
}

// A distributed run read past one machine (docs/distributed.md, "Past one machine"): the map,
// `breakdown RANK --rank-summary`, as a Slurm job array (one task per rank), then the reduce over
// the summaries: the document the traces give when read together.
TEST(CliSlurm, TheRanksOfARunAreMappedAsAJobArrayAndReduced) {
    if (const std::string why = slurmDown(); !why.empty())
        GTEST_SKIP() << why;
    TempDir dir;
    const std::string run = std::string(REACH_TEST_DATA) + "/distributed/skewed4";
    std::string script = "#!/bin/bash\nset -e\n";
    script += "RANKS=(";
    for (int r = 0; r < 4; ++r)
        script += "'" + run + "/rank-" + std::to_string(r) + ".json.gz' ";
    script += ")\n'" + std::string(REACH_CLI) +
              "' breakdown \"${RANKS[$SLURM_ARRAY_TASK_ID]}\" "
              "--rank-summary \"" +
              dir.root() + "/summary_${SLURM_ARRAY_TASK_ID}.json\"\n";
    writeFile(dir.path("map.sh"), script);
    const ChildResult submit =
        runChild({"sbatch", "--wait", "--array=0-3", "--job-name=reach-map",
                  "--output=" + dir.path("map_%a.log"), "--chdir", dir.root(), dir.path("map.sh")},
                 240);
    ASSERT_EQ(submit.exitCode, 0) << submit.out << submit.err;
    std::vector<std::string> reduce = {"breakdown"};
    for (int r = 0; r < 4; ++r) {
        const std::string s = dir.path("summary_" + std::to_string(r) + ".json");
        ASSERT_TRUE(fs::exists(s)) << readFile(dir.path("map_" + std::to_string(r) + ".log"));
        reduce.push_back(s);
    }
    reduce.insert(reduce.end(), {"--ranks", "--json"});
    const CliResult reduced = runCli(reduce);
    ASSERT_EQ(reduced.status, 0) << reduced.err;
    const CliResult direct = runCli({"breakdown", run, "--ranks", "--json"});
    ASSERT_EQ(direct.status, 0) << direct.err;
    EXPECT_EQ(nlohmann::json::parse(reduced.out), nlohmann::json::parse(direct.out));
    EXPECT_EQ(nlohmann::json::parse(reduced.out)["critical_rank"], 2);
}

}  // namespace reach_test_clislurm_test
