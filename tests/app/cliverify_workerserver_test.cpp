// KernelBench-format verification through the warm worker server (core/verify/workerserver.h,
// resources/python/reach_kbserver.py), end to end on the CPU, run as a batch and the GUI run
// reach-verify: with a connection of its own, inherited. The same verdicts as without it, no
// `import torch` in the jobs; and issue 36's escapes closed: nothing a candidate starts outlives
// its job, under the server as without it; nothing a job can reach names the server; a hung job
// is killed with everything it started; no connection (or a bad one) is no failure: the workers
// start by themselves. (The server's own guards: tests/python/test_kbserver.py.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "clirunner.h"
#include "core/verify/childprocess.h"
#include "core/verify/verifyprocess.h"
#include "core/verify/workerserver.h"

namespace reach_test_cliverify_workerserver_test {  // unity builds: this file's names stay its own

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kServer = std::string(REACH_SOURCE_DIR) + "/resources/python/reach_kbserver.py";

struct Verified {
    reach::VerifierRun run;
    json doc;
};

// (state, ppid) of every process, from /proc.
std::map<pid_t, std::pair<char, pid_t>> processTable() {
    std::map<pid_t, std::pair<char, pid_t>> out;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream in(e.path() / "stat");
        const std::string stat((std::istreambuf_iterator<char>(in)), {});
        const size_t close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        std::istringstream rest(stat.substr(close + 1));
        char state = '?';
        pid_t ppid = 0;
        rest >> state >> ppid;
        out[pid_t(std::stol(name))] = {state, ppid};
    }
    return out;
}

// Live (not zombie) processes below `pid`.
std::vector<pid_t> descendants(pid_t pid) {
    const auto table = processTable();
    std::vector<pid_t> found, todo = {pid};
    while (!todo.empty()) {
        const pid_t p = todo.back();
        todo.pop_back();
        for (const auto& [child, info] : table) {
            if (info.second != p)
                continue;
            if (info.first != 'Z')
                found.push_back(child);
            todo.push_back(child);
        }
    }
    return found;
}

bool alive(pid_t pid) {
    const auto table = processTable();
    const auto it = table.find(pid);
    return it != table.end() && it->second.first != 'Z';
}

// Waits until nothing is left below `pid` (a keeper exits just after its report).
std::vector<pid_t> descendantsAfterSettling(pid_t pid) {
    std::vector<pid_t> left;
    for (int i = 0; i < 60; ++i) {
        left = descendants(pid);
        if (left.empty())
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return left;
}

std::vector<std::string> filesStartingWith(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().starts_with(prefix))
            out.push_back(e.path().string());
    return out;
}

class CliVerifyWorkerServer : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch (scripts/deps installs python3-torch)";
        setenv("REACH_PYTHON", REACH_TEST_PYTHON, 1);
        std::string error;
        server = reach::WorkerServer::start(REACH_TEST_PYTHON, kServer, 120, &error);
        ASSERT_TRUE(server) << error;
    }
    // reach-verify on a problem and candidate of tests/data/kernelbench-py/ on the CPU worker,
    // given a connection of its own to the server (as a batch and the GUI give it) or none.
    Verified verify(const std::string& problem, const std::string& cand,
                    std::vector<std::string> more = {}, bool viaServer = true,
                    std::vector<std::string> env = {}) {
        const std::string data = std::string(REACH_TEST_DATA) + "/kernelbench-py/";
        reach::VerifyProcessRequest req;
        req.verifier = REACH_VERIFY_EXE;
        req.problemFile = data + "problems/" + problem;
        req.candidateFile = data + "candidates/" + cand;
        req.extraArgs = {"--worker-device", "cpu", "--reps", "5", "--cache-dir", dir.path("cache")};
        req.extraArgs.insert(req.extraArgs.end(), more.begin(), more.end());
        req.timeoutSeconds = 300;
        req.env = env;
        if (viaServer) {
            std::string why;
            const int fd = server->connect(&why);
            EXPECT_GE(fd, 0) << why;
            req.inheritFds = {fd};
            req.env.push_back(std::string(reach::kWorkerServerFdVariable) + "=" +
                              std::to_string(fd));
        }
        Verified v;
        reach::runVerifierProcess(req, &v.run);
        v.doc = json::parse(v.run.out, nullptr, false);
        return v;
    }
    reach::test::TempDir dir;
    std::unique_ptr<reach::WorkerServer> server;
};

}  // namespace

TEST_F(CliVerifyWorkerServer, VerdictsAreTheSameAndNoJobImportsPyTorch) {
    const auto r = verify("23_Softmax.py", "zeros_like.py", {"--fresh"});
    ASSERT_EQ(r.run.exitCode, 1) << r.run.err;
    EXPECT_EQ(r.doc["verdict"], "fail");
    EXPECT_TRUE(r.doc["fooled"].get<bool>());
    // PyTorch was imported by the server: in the forked jobs `import torch` finds it loaded.
    EXPECT_LT(r.doc["kernelbench"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    EXPECT_LT(r.doc["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    EXPECT_EQ(r.run.err.find("starting the worker directly"), std::string::npos) << r.run.err;

    const auto ok = verify("23_Softmax.py", "softmax_correct.py", {"--fresh"});
    ASSERT_EQ(ok.run.exitCode, 0) << ok.run.err;
    EXPECT_EQ(ok.doc["verdict"], "pass");
}

TEST_F(CliVerifyWorkerServer, AHungJobIsKilledAtItsTimeoutWithEverythingItStarted) {
    // The judge's runner hangs in its first call until the worker's timeout; KernelBench's
    // reproduction, which runs only after a judged candidate, does not run (issue 36).
    Verified r;
    const auto t0 = std::chrono::steady_clock::now();
    std::thread job([&] {
        r = verify("23_Softmax.py", "forward_hangs.py", {"--worker-timeout", "6"});
    });
    std::vector<pid_t> below;
    for (int i = 0; i < 100 && below.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        below = descendants(server->pid());
    }
    EXPECT_FALSE(below.empty()) << "no job under the server";
    job.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.doc.is_object()) << r.run.err;
    EXPECT_EQ(r.doc["reach"]["verdict"], "timeout") << r.doc["reach"].dump();
    EXPECT_EQ(r.doc["verdict"], "timeout");
    EXPECT_NE(r.doc["kernelbench"].value("error", std::string()).find("not run"), std::string::npos)
        << r.doc["kernelbench"].dump();
    // Killed on the client's request and reported, not given up after the grace.
    EXPECT_LT(s, 6 + 8);
    // The server is still there and has nothing left running: a next job is served.
    EXPECT_EQ(kill(server->pid(), 0), 0);
    EXPECT_EQ(descendantsAfterSettling(server->pid()), std::vector<pid_t>{});
    const auto next = verify("23_Softmax.py", "softmax_correct.py", {"--fresh"});
    EXPECT_EQ(next.run.exitCode, 0) << next.run.err;
    // Read by pointer: a document cut short is a failed expectation, never a read of a key
    // that is not there (issue 38: operator[] on a const document aborted under load).
    const json::json_pointer importTorch("/reach/phase_seconds/import_torch");
    ASSERT_TRUE(next.doc.contains(importTorch)) << next.doc.dump() << next.run.err;
    EXPECT_LT(next.doc.at(importTorch).get<double>(), 0.05);
}

// Issue 36: under the server, the job's orphans escaped reach-verify's subreaper; one took over
// the server's socket path and answered later jobs with forged passing documents.
TEST_F(CliVerifyWorkerServer, ADaemonTheCandidateLeavesDiesWithItsJobUnderTheServerAsWithout) {
    // A daemon writes "late-<pid>" 3 s after it started: one that did while its job still ran
    // (a slow worker) is no escape, one that does after the job ended is.
    std::map<std::string, size_t> lateAtTheEnd;
    for (const bool viaServer : {true, false}) {
        SCOPED_TRACE(viaServer ? "through the server" : "without it");
        const std::string daemons = dir.path(viaServer ? "daemons-served" : "daemons-direct");
        fs::create_directories(daemons);
        const auto r = verify("add_random.py", "leaves_a_daemon.py", {"--fresh"}, viaServer,
                              {"REACH_TEST_DAEMON_DIR=" + daemons});
        ASSERT_TRUE(r.doc.is_object()) << r.run.err;
        EXPECT_EQ(r.doc["kernelbench"]["correctness"], true) << r.doc["kernelbench"].dump();
        const auto pids = filesStartingWith(daemons, "pid-");
        // One from KernelBench's reproduction (the candidate runs in the worker), one from the
        // judge's runner.
        EXPECT_EQ(pids.size(), 2u);
        for (const std::string& f : pids)
            EXPECT_FALSE(alive(pid_t(std::stol(reach::test::readFile(f))))) << f;
        if (viaServer) {
            EXPECT_EQ(descendantsAfterSettling(server->pid()), std::vector<pid_t>{});
        }
        lateAtTheEnd[daemons] = filesStartingWith(daemons, "late-").size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    for (const auto& [daemons, n] : lateAtTheEnd)
        EXPECT_EQ(filesStartingWith(daemons, "late-").size(), n) << daemons;
}

TEST_F(CliVerifyWorkerServer, NothingAJobCanReachNamesTheServer) {
    const std::string reports = dir.path("reports");
    fs::create_directories(reports);
    const auto r = verify("add_random.py", "reports_its_reach.py", {"--fresh"}, true,
                          {"REACH_TEST_REPORT_DIR=" + reports,
                           // What an owner of an earlier version set: not passed on either.
                           "REACH_KB_SERVER=" + dir.path("s.sock")});
    ASSERT_EQ(r.run.exitCode, 0) << r.run.err;
    EXPECT_LT(r.doc["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    const auto files = filesStartingWith(reports, "report-");
    ASSERT_EQ(files.size(), 2u);  // KernelBench's worker and the judge's runner
    for (const std::string& f : files) {
        const json report = json::parse(reach::test::readFile(f));
        SCOPED_TRACE(report.dump());
        for (const auto& name : report["env"])
            EXPECT_FALSE(name.get<std::string>().starts_with("REACH_KB_SERVER"));
        // The runner holds its channel to the judge; KernelBench's worker holds no socket.
        if (report["argv"] == json::array({"kernelbench"})) {
            for (const auto& [fd, target] : report["fds"].items())
                EXPECT_FALSE(target.get<std::string>().starts_with("socket:")) << fd;
        }
    }
}

TEST_F(CliVerifyWorkerServer, NoConnectionOrABadOneMeansTheWorkerStartsByItself) {
    const auto r = verify("23_Softmax.py", "softmax_correct.py", {"--fresh"}, false);
    ASSERT_EQ(r.run.exitCode, 0) << r.run.err;
    EXPECT_EQ(r.doc["verdict"], "pass");
    EXPECT_GT(r.doc["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    EXPECT_EQ(r.run.err.find(reach::kWorkerServerFdVariable), std::string::npos) << r.run.err;

    // A number nobody passed, and the socket path of earlier versions: each said once.
    const auto bad = verify("23_Softmax.py", "softmax_correct.py", {"--fresh"}, false,
                            {std::string(reach::kWorkerServerFdVariable) + "=77",
                             "REACH_KB_SERVER=" + dir.path("s.sock")});
    ASSERT_EQ(bad.run.exitCode, 0) << bad.run.err;
    EXPECT_NE(bad.run.err.find("=77: not open"), std::string::npos) << bad.run.err;
    EXPECT_NE(bad.run.err.find("$REACH_KB_SERVER is ignored"), std::string::npos) << bad.run.err;
    EXPECT_GT(bad.doc["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
}

}  // namespace reach_test_cliverify_workerserver_test
