// A workload's own benchmark read back and verified runs matched to its problems by the problem
// bytes' SHA-256 (core/ownbenchmark/benchmarkfolder.h, core/ownbenchmark/verifiedruns.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/sha256.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/ownbenchmark/verifiedruns.h"
#include "tests/core/testfiles.h"

namespace reach_test_verifiedruns_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
using reach::test::TempFolder;
using reach::test::writeText;

namespace {

const std::string kProfileSha(64, 'a');
const std::string kProblemA = "class Model: pass  # a\n";
const std::string kProblemB = "class Model: pass  # b\n";

// Two problems: 300 us and 100 us of a 1000 us workload.
json benchmarkJson() {
    return {{"profile", "w.json.gz"},
            {"profile_sha256", kProfileSha},
            {"category", "addressable"},
            {"gpu_us", 1000.0},
            {"rules", {{"name", "reach-default"}, {"hash", "h"}}},
            {"problems",
             {{{"file", "001_a.py"},
               {"operator", "aten::add"},
               {"signature", {{"dims", {{4, 4}}}}},
               {"kernels",
                {{{"name", "k1"}, {"calls", 3}, {"gpu_us", 200.0}},
                 {{"name", "k2"}, {"calls", 3}, {"gpu_us", 100.0}}}}},
              {{"file", "002_b.py"},
               {"operator", "aten::cat"},
               {"signature", json::object()},
               {"kernels", {{{"name", "k3"}, {"calls", 1}, {"gpu_us", 100.0}}}}}}}};
}

void writeFolder(const TempFolder& dir, const json& doc) {
    writeText(dir.path("001_a.py"), kProblemA);
    writeText(dir.path("002_b.py"), kProblemB);
    writeText(dir.path("benchmark.json"), doc.dump());
}

std::string messageOf(const std::string& dir) {
    try {
        readBenchmarkFolder(dir);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

// A reach-verify document of the KernelBench format, as far as the exact projection reads it.
json verifyDoc(const std::string& problemBytes, const std::string& verdict, double candidateUs,
               double eagerUs) {
    const json timing = {{"reps", 100}, {"median_us", candidateUs}};
    return {{"schema", "reach.verification"},
            {"verdict", verdict},
            {"problem_id", "p"},
            {"problem_file", "p.py"},
            {"candidate_file", "c.py"},
            {"problem_sha256", Sha256::hex(problemBytes)},
            {"candidate_sha256", Sha256::hex("c" + std::to_string(candidateUs))},
            {"timing", timing},
            {"speedup", eagerUs / candidateUs},
            {"format", "kernelbench"},
            {"reach",
             {{"timing", timing},
              {"baselines",
               {{{"kind", "eager"},
                 {"timing", {{"reps", 100}, {"median_us", eagerUs}}},
                 {"us", eagerUs}}}}}}};
}

// This process's key for the test: a folder of its own, set for the test's scope.
class TestKey {
public:
    TestKey() : m_dir(m_folder.path("key")) {
        if (const char* old = std::getenv("REACH_KEY_DIR"))
            m_old = old;
        setenv("REACH_KEY_DIR", m_dir.c_str(), 1);
    }
    ~TestKey() {
        if (m_old)
            setenv("REACH_KEY_DIR", m_old->c_str(), 1);
        else
            unsetenv("REACH_KEY_DIR");
    }

private:
    TempFolder m_folder;
    std::string m_dir;
    std::optional<std::string> m_old;
};

// As reach-verify prints it on this machine: signed with the user's key.
json signedHere(json doc) {
    EXPECT_EQ(signEvidence(doc), "");
    return doc;
}

}  // namespace

// Each problem's share is its kernels' time over the workload's (300/1000, 100/1000), and its
// hash is the SHA-256 of the file's bytes now.
TEST(BenchmarkFolder, ReadsSharesAndHashesTheProblemFiles) {
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    const BenchmarkFolder b = readBenchmarkFolder(dir.root());
    ASSERT_EQ(b.problems.size(), 2u);
    EXPECT_DOUBLE_EQ(b.problems[0].share, 0.3);
    EXPECT_DOUBLE_EQ(b.problems[0].gpuUs, 300);
    EXPECT_DOUBLE_EQ(b.problems[1].share, 0.1);
    EXPECT_EQ(b.problems[0].sha256, Sha256::hex(kProblemA));
    EXPECT_EQ(b.problems[1].sha256, Sha256::hex(kProblemB));
    EXPECT_EQ(b.rulesName, "reach-default");
    EXPECT_NO_THROW(requireBenchmarkOf(b, "w.json.gz", kProfileSha));
    EXPECT_THROW(requireBenchmarkOf(b, "other.json.gz", std::string(64, 'b')), InputError);
}

// A stranger's benchmark.json: every bad key is one line naming the file and the key.
TEST(BenchmarkFolder, HostileKeysAreOneLineErrorsNamingTheKey) {
    struct Case {
        const char* what;
        json doc;
        const char* place;
    };
    std::vector<Case> cases;
    json d = benchmarkJson();
    d["problems"][1]["file"] = "../../etc/passwd.py";
    cases.push_back({"path traversal", d, "problems[1].file"});
    d = benchmarkJson();
    d["problems"][0]["file"] = "/tmp/x.py";
    cases.push_back({"absolute path", d, "problems[0].file"});
    d = benchmarkJson();
    d["problems"][0]["file"] = "002_b.py";
    cases.push_back({"a file twice", d, "problems[1].file"});
    d = benchmarkJson();
    d["gpu_us"] = "1000";
    cases.push_back({"a string for a number", d, "gpu_us"});
    d = benchmarkJson();
    d["problems"][0]["kernels"][1]["gpu_us"] = -5;
    cases.push_back({"negative time", d, "problems[0].kernels[1].gpu_us"});
    d = benchmarkJson();
    d["problems"][0]["kernels"][0]["gpu_us"] = 5000;
    cases.push_back({"more than the workload", d, "problems[0].kernels"});
    d = benchmarkJson();
    d["profile_sha256"] = "abc";
    cases.push_back({"not a SHA-256", d, "profile_sha256"});
    d = benchmarkJson();
    d["problems"] = json::object();
    cases.push_back({"problems not a list", d, "problems"});
    d = benchmarkJson();
    d["problems"][0].erase("operator");
    cases.push_back({"a missing key", d, "problems[0].operator"});
    d = benchmarkJson();
    d["problems"][1]["file"] = "missing.py";
    cases.push_back({"a file that is not there", d, "problems[1].file"});
    for (const Case& c : cases) {
        TempFolder dir;
        writeFolder(dir, c.doc);
        const std::string m = messageOf(dir.root());
        EXPECT_NE(m.find("benchmark.json: " + std::string(c.place) + ": "), std::string::npos)
            << c.what << ": " << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << c.what;
    }
}

// A problem file that is a link is not followed (it could name any file on the machine).
TEST(BenchmarkFolder, AProblemFileThatIsALinkIsRefused) {
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    std::filesystem::remove(dir.path("002_b.py"));
    std::filesystem::create_symlink(dir.path("001_a.py"), dir.path("002_b.py"));
    EXPECT_NE(messageOf(dir.root()).find("problems[1].file"), std::string::npos);
}

// The best passing run per problem (highest eager/candidate), the others counted by why they do
// not count; a run of other bytes and a run without problem_sha256 are unmatched.
TEST(VerifiedRuns, MatchedByProblemBytesBestPassingRunChosen) {
    TestKey key;
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    const BenchmarkFolder b = readBenchmarkFolder(dir.root());
    json noHash = verifyDoc(kProblemB, "pass", 10, 30);
    noHash.erase("problem_sha256");
    const json runs =
        json::array({signedHere(verifyDoc(kProblemA, "pass", 50, 100)),   // sigma 2
                     signedHere(verifyDoc(kProblemA, "pass", 40, 100)),   // sigma 2.5: best
                     signedHere(verifyDoc(kProblemA, "fail", 10, 100)),   // fastest, wrong
                     signedHere(verifyDoc(kProblemA, "pass", 120, 100)),  // slower
                     signedHere(verifyDoc(kProblemB, "fail", 10, 30)),
                     signedHere(verifyDoc("edited", "pass", 10, 30)), signedHere(noHash)});
    writeText(dir.path("runs.json"), runs.dump());
    const BenchmarkRuns m = matchVerifiedRuns(b, readVerifiedRuns({dir.path("runs.json")}));
    EXPECT_EQ(m.read, 7);
    ASSERT_EQ(m.problems.size(), 2u);
    const ProblemRuns& a = m.problems[0];
    EXPECT_EQ(a.found, 4);
    EXPECT_EQ(a.verdicts.at("pass"), 3);
    EXPECT_EQ(a.verdicts.at("fail"), 1);
    EXPECT_EQ(a.slower, 1);
    ASSERT_TRUE(a.best);
    EXPECT_DOUBLE_EQ(*a.best->sigma(), 2.5);
    EXPECT_DOUBLE_EQ(a.best->verifierSpeedup, 2.5);
    EXPECT_EQ(a.best->source, dir.path("runs.json") + ", record 2");
    EXPECT_EQ(m.problems[1].found, 1);
    EXPECT_FALSE(m.problems[1].best);
    ASSERT_EQ(m.unmatched.size(), 2u);
    EXPECT_NE(m.unmatched[0].why.find("no problem_sha256"), std::string::npos);
    EXPECT_NE(m.unmatched[1].why.find("no problem of this benchmark"), std::string::npos);
}

// Issue 37: a pass Reach did not sign here (a stranger's file, one edited by hand, another
// user's key) is listed as a claim, never chosen, whatever sigma it says.
TEST(VerifiedRuns, AClaimedPassIsListedNeverCounted) {
    TestKey key;
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    json edited = signedHere(verifyDoc(kProblemA, "pass", 50, 100));       // sigma 2, signed
    edited["reach"]["timing"]["median_us"] = 20;                           // sigma 5, by hand
    const json runs = json::array({verifyDoc(kProblemA, "pass", 10, 100),  // sigma 10, unsigned
                                   edited, signedHere(verifyDoc(kProblemA, "pass", 80, 100))});
    writeText(dir.path("runs.json"), runs.dump());
    const BenchmarkRuns m = matchVerifiedRuns(readBenchmarkFolder(dir.root()),
                                              readVerifiedRuns({dir.path("runs.json")}));
    const ProblemRuns& a = m.problems[0];
    EXPECT_EQ(m.signedHere, 1);
    EXPECT_EQ(m.claimed, 2);
    EXPECT_EQ(a.claimed, 2);
    ASSERT_TRUE(a.best);
    EXPECT_DOUBLE_EQ(*a.best->sigma(), 1.25);  // the only pass verified here
    EXPECT_TRUE(a.best->evidence.signedHere);
    ASSERT_TRUE(a.bestClaimed);
    EXPECT_DOUBLE_EQ(*a.bestClaimed->sigma(), 10);
    EXPECT_NE(a.bestClaimed->evidence.why.find("not signed"), std::string::npos);
    ASSERT_EQ(a.passes.size(), 3u);
    EXPECT_DOUBLE_EQ(*a.passes[0].sigma(), 10);  // every pass, fastest first, for integrate
    ASSERT_EQ(m.inputs.size(), 3u);
    EXPECT_NE(m.inputs[1].evidence.why.find("edited"), std::string::npos);
}

// Issue 37, item 6: two entries of the same bytes never match one run twice.
TEST(VerifiedRuns, TwoProblemsOfTheSameBytesShareTheirRunsOnce) {
    TestKey key;
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    const json runs = json::array({signedHere(verifyDoc(kProblemA, "pass", 50, 100))});
    writeText(dir.path("runs.json"), runs.dump());
    // The folder's reader refuses a second problem of the first's bytes (issue 37) ...
    BenchmarkFolder folder = readBenchmarkFolder(dir.root());
    writeText(dir.path("002_b.py"), kProblemA);
    EXPECT_THROW(readBenchmarkFolder(dir.root()), InputError);
    // ... and the matching, given such a folder all the same, counts their run once.
    folder.problems[1].sha256 = folder.problems[0].sha256;
    const BenchmarkRuns m = matchVerifiedRuns(folder, readVerifiedRuns({dir.path("runs.json")}));
    EXPECT_EQ(m.problems[0].found, 1);
    EXPECT_TRUE(m.problems[0].best);
    EXPECT_EQ(m.problems[1].found, 0);
    EXPECT_FALSE(m.problems[1].best);
    ASSERT_EQ(m.duplicates.size(), 1u);
    EXPECT_NE(m.duplicates[0].find("002_b.py: the same bytes as 001_a.py"), std::string::npos);
}

// A passing run without the eager loop (a C++ candidate timed against Reach's own kernel) has
// no sigma on the trace's eager kernels: counted, never chosen.
TEST(VerifiedRuns, APassWithoutAnEagerLoopIsNotChosen) {
    TempFolder dir;
    writeFolder(dir, benchmarkJson());
    json doc = verifyDoc(kProblemA, "pass", 40, 100);
    doc["reach"]["baselines"][0]["kind"] = "torch_compile";
    writeText(dir.path("runs.json"), doc.dump());
    const BenchmarkRuns m = matchVerifiedRuns(readBenchmarkFolder(dir.root()),
                                              readVerifiedRuns({dir.path("runs.json")}));
    EXPECT_EQ(m.problems[0].found, 1);
    EXPECT_EQ(m.problems[0].withoutTimings, 1);
    EXPECT_FALSE(m.problems[0].best);
}

// The repetitions a KernelBench-format document carries (`clock.runner_us`) come with the loop.
TEST(VerifiedRuns, RepetitionsAndSpreadAreRead) {
    TempFolder dir;
    json doc = verifyDoc(kProblemA, "pass", 40, 100);
    doc["reach"]["timing"]["p10_us"] = 38;
    doc["reach"]["timing"]["p90_us"] = 44;
    doc["reach"]["timing"]["clock"] = {{"judge_us", {41, 42, 43}}, {"runner_us", {39, 40, 41}}};
    writeText(dir.path("runs.json"), doc.dump());
    const VerifiedRuns r = readVerifiedRuns({dir.path("runs.json")});
    ASSERT_EQ(r.runs.size(), 1u);
    ASSERT_TRUE(r.runs[0].candidate);
    EXPECT_EQ(r.runs[0].candidate->samplesUs, (std::vector<double>{39, 40, 41}));
    EXPECT_EQ(*r.runs[0].candidate->p10Us, 38);
    EXPECT_EQ(r.runs[0].candidate->reps, 100);
    ASSERT_TRUE(r.runs[0].eager);
    EXPECT_TRUE(r.runs[0].eager->samplesUs.empty());
}

// Since the judge owns the time (issue 36) the median is of its figures (`clock.figure_us`), not
// of the runner's claims: those are what an interval is resampled from.
TEST(VerifiedRuns, TheJudgesFiguresAreTheRepetitions) {
    TempFolder dir;
    json doc = verifyDoc(kProblemA, "pass", 40, 100);
    doc["reach"]["timing"]["clock"] = {
        {"judge_us", {61, 62, 63}}, {"runner_us", {4, 4, 90}}, {"figure_us", {39, 40, 41}}};
    writeText(dir.path("runs.json"), doc.dump());
    const VerifiedRuns r = readVerifiedRuns({dir.path("runs.json")});
    ASSERT_EQ(r.runs.size(), 1u);
    ASSERT_TRUE(r.runs[0].candidate);
    EXPECT_EQ(r.runs[0].candidate->samplesUs, (std::vector<double>{39, 40, 41}));
}

}  // namespace reach_test_verifiedruns_test
