// The Slurm side of a batch (core/batch/slurmbatch.h, core/batch/slurmwatch.h) without a
// cluster: Slurm's own outputs captured on the CI's one-node Slurm (tests/data/slurm/README.md),
// the array script, the slices, a task run with the fake verifier, and the watcher importing
// each result file once (also across sessions) and naming the tasks to resubmit.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "batchtestsupport.h"
#include "core/base/inputerror.h"
#include "core/batch/slurmbatch.h"
#include "core/batch/slurmwatch.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"

namespace reach_test_slurmbatch_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::BatchScratch;

namespace {

std::string captured(const std::string& name) {
    std::ifstream in(std::string(REACH_TEST_DATA) + "/slurm/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

const SlurmTaskState* find(const std::vector<SlurmTaskState>& v, int task) {
    for (const auto& s : v)
        if (s.task == task)
            return &s;
    return nullptr;
}

SlurmBatch batchOf(const BatchScratch& s, int jobs, int perTask, const std::string& text) {
    SlurmOptions o;
    o.jobsPerTask = perTask;
    o.partition = "gpu";
    o.time = "00:30:00";
    std::vector<nlohmann::json> tags;
    std::vector<BatchJob> js = s.jobs(jobs, text);
    for (const BatchJob& j : js) {
        EvalRecord r;
        r.suite = "Reach";
        r.problemId = "problem";
        r.sampleId = j.label;
        tags.push_back(recordTag(r));
    }
    SlurmBatch b = makeSlurmBatch(s.dir() + "/slurm", "batch-x", js, tags, o, "/opt/reach-cli",
                                  REACH_FAKE_BATCH_VERIFIER, s.env());
    b.write();
    return b;
}

}  // namespace

TEST(SlurmParse, SbatchJobIds) {
    EXPECT_EQ(parseSbatchJobId(captured("sbatch_parsable.txt")), "5");
    EXPECT_EQ(parseSbatchJobId(captured("sbatch_plain.txt")), "9");
    EXPECT_EQ(parseSbatchJobId("123;cluster\n"), "123");
    EXPECT_EQ(parseSbatchJobId("sbatch: error: Batch job submission failed\n"), "");
}

TEST(SlurmParse, SqueuePerTaskAndRanges) {
    const auto perTask = parseSqueue(captured("squeue_running.txt"));
    ASSERT_EQ(perTask.size(), 6u);
    EXPECT_EQ(find(perTask, 0)->state, "RUNNING");
    EXPECT_EQ(find(perTask, 5)->state, "PENDING");
    EXPECT_EQ(find(perTask, 5)->reason, "Resources");
    EXPECT_EQ(find(perTask, 5)->jobId, "5");
    const auto ranges = parseSqueue(captured("squeue_ranges.txt"));
    ASSERT_EQ(ranges.size(), 3u);
    EXPECT_EQ(ranges[0].task, -1);
    EXPECT_EQ(ranges[0].tasks, (std::vector<int>{2, 3, 4, 5}));  // "5_[2-5%3]"
}

TEST(SlurmParse, ScontrolKnowsEndedTasks) {
    const auto states = parseScontrolJobs(captured("scontrol_mixed.txt"));
    ASSERT_EQ(states.size(), 4u);
    const SlurmTaskState* cancelled = find(states, 0);
    ASSERT_TRUE(cancelled);
    EXPECT_EQ(cancelled->state, "CANCELLED");
    EXPECT_EQ(cancelled->exitCode, "0:15");
    EXPECT_EQ(cancelled->jobId, "5");
    EXPECT_EQ(states[0].tasks, (std::vector<int>{3, 4, 5}));  // "ArrayTaskId=3-5%3", pending
    EXPECT_EQ(states[0].state, "PENDING");
}

TEST(SlurmParse, SacctStatesWithoutSteps) {
    const auto states = parseSacct(captured("sacct_documented.txt"));
    ASSERT_EQ(states.size(), 6u);  // the .batch steps are left out
    EXPECT_EQ(find(states, 1)->state, "CANCELLED");
    EXPECT_EQ(find(states, 1)->exitCode, "0:15");
    EXPECT_EQ(find(states, 2)->state, "TIMEOUT");
    EXPECT_EQ(find(states, 3)->state, "PREEMPTED");
    EXPECT_TRUE(isFailedSlurmState("PREEMPTED"));
    EXPECT_TRUE(isFailedSlurmState("TIMEOUT"));
    EXPECT_FALSE(isFailedSlurmState("COMPLETED"));
    EXPECT_TRUE(isActiveSlurmState("PENDING"));
    EXPECT_EQ(states.back().tasks, (std::vector<int>{5, 6, 7}));
}

TEST(SlurmBatchFiles, SlicesScriptAndRoundTrip) {
    BatchScratch s("slurmfiles");
    const SlurmBatch b = batchOf(s, 7, 3, "sleep_ms=1");
    ASSERT_EQ(b.tasks.size(), 3u);
    EXPECT_EQ(b.tasks[2], (std::vector<int>{6}));
    const std::string script = slurmArrayScript(b);
    EXPECT_NE(script.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << script;
    EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos);
    EXPECT_NE(script.find("#SBATCH --time=00:30:00\n"), std::string::npos);
    EXPECT_NE(script.find("exec '/opt/reach-cli' verify --slurm-task '" + b.dir +
                          "' --task \"$SLURM_ARRAY_TASK_ID\""),
              std::string::npos)
        << script;
    EXPECT_NE(script.find("export FAKE_VERIFY_LOG="), std::string::npos);
    EXPECT_EQ(slurmArraySpec({0, 1, 2, 5, 7, 8}, 4), "0-2,5,7-8%4");
    EXPECT_EQ(sbatchCommand(b, "0-2").at(2), "--array=0-2");
    const SlurmBatch back = SlurmBatch::read(b.dir);
    EXPECT_EQ(back.jobs.size(), 7u);
    EXPECT_EQ(back.jobs[4].candidateHash, b.jobs[4].candidateHash);
    EXPECT_EQ(back.tags[4]["sample_id"], "c4");
    EXPECT_EQ(back.tasks, b.tasks);
    EXPECT_THROW(SlurmBatch::read(s.dir()), InputError);
}

TEST(SlurmTask, RunsItsSliceOnceAndSkipsWhatHasResults) {
    BatchScratch s("slurmtask");
    const SlurmBatch b = batchOf(s, 5, 3, "sleep_ms=1");
    EXPECT_EQ(runSlurmTask(b, 0), 3);
    EXPECT_EQ(slurmResultsPresent(b), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(runSlurmTask(b, 0), 0);  // resubmitted after it finished: nothing left to run
    std::filesystem::remove(b.resultFile(1));
    EXPECT_EQ(runSlurmTask(b, 0), 1);  // only the job without a result
    EXPECT_EQ(s.countBy("run")["c1.cu"], 2);
    EXPECT_EQ(s.countBy("run")["c0.cu"], 1);
    EXPECT_THROW(runSlurmTask(b, 7), InputError);
    const SlurmResult r = readSlurmResult(b.resultFile(0));
    EXPECT_EQ(r.job, 0);
    EXPECT_EQ(r.task, 0);
    EXPECT_NE(r.run.out.find("\"verdict\":\"pass\""), std::string::npos);
}

TEST(SlurmWatch, ImportsEachResultOnceAcrossSessionsAndNamesTasksToResubmit) {
    BatchScratch s("slurmwatch");
    SlurmBatch b = batchOf(s, 4, 2, "sleep_ms=1");
    b.submissions.push_back({"5", "0-1", ""});
    b.write();
    runSlurmTask(b, 0);  // task 1 never ran (cancelled)
    ProjectStore store = ProjectStore::open(s.dir() + "/p.reach");
    // Slurm as captured: nothing of job 5 active any more; scontrol says task 1 was cancelled.
    auto slurm = [](const std::vector<std::string>& argv) {
        ChildResult c;
        c.started = true;
        c.exitCode = 0;
        if (argv[0] == "squeue") {
            c.exitCode = 1;
            c.err = "slurm_load_jobs error: Invalid job id specified\n";
        } else if (argv[0] == "sacct") {
            c.exitCode = 1;
            c.err = "Slurm accounting storage is disabled\n";
        } else if (argv[0] == "scontrol") {
            c.out =
                "JobId=6 ArrayJobId=5 ArrayTaskId=0 JobState=COMPLETED Reason=None ExitCode=0:0\n"
                "JobId=7 ArrayJobId=5 ArrayTaskId=1 JobState=CANCELLED Reason=None "
                "ExitCode=0:15\n";
        }
        return c;
    };
    SlurmWatcher w(b, &store, slurm);
    const auto first = w.importNew();
    ASSERT_EQ(first.size(), 2u);
    EXPECT_TRUE(first[0].stored) << first[0].skipped;
    EXPECT_TRUE(w.importNew().empty());
    const auto tasks = w.poll();
    ASSERT_EQ(tasks.size(), 2u);
    EXPECT_EQ(tasks[0].state, "COMPLETED");
    EXPECT_EQ(tasks[1].state, "CANCELLED");
    EXPECT_EQ(tasks[1].missing, 2);
    EXPECT_EQ(SlurmWatcher::unfinished(tasks), (std::vector<int>{1}));

    // A second session (another reach-cli) reads the files again and stores nothing twice.
    runSlurmTask(b, 1);
    SlurmWatcher again(SlurmBatch::read(b.dir), &store, slurm);
    int stored = 0;
    for (const SlurmImport& imp : again.importNew())
        stored += imp.stored;
    EXPECT_EQ(stored, 2);
    const auto rows = loadVerifications(store);
    ASSERT_EQ(rows.size(), 4u);
    std::set<std::string> tags;
    for (const auto& v : rows)
        tags.insert(v.batch);
    EXPECT_EQ(tags, (std::set<std::string>{"batch-x#0", "batch-x#1", "batch-x#2", "batch-x#3"}));
    EXPECT_TRUE(SlurmWatcher::unfinished(again.poll()).empty());
}

}  // namespace reach_test_slurmbatch_test
