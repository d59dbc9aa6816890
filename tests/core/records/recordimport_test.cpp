// Record importers on real files: KernelBench's recorded baselines (datasets/kernelbench/), the
// KernelBench-format run results built from them (tests/data/kernelbench/), Reach JSONL and the
// generic mapped CSV/JSON importer.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/records/recordimport.h"
#include "core/records/recordimportgeneric.h"
#include "core/records/recordimportkernelbench.h"
#include "core/records/recordreader.h"

namespace reach_test_recordimport_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

const std::string kEager =
    std::string(REACH_DATASETS) + "/kernelbench/H100_Modal_baseline_time_torch.json";
const std::string kCompile =
    std::string(REACH_DATASETS) +
    "/kernelbench/H100_Modal_baseline_time_torch_compile_inductor_default.json";
const std::string kCategories = std::string(REACH_DATASETS) + "/kernelbench/level1_categories.csv";
const std::string kRun = std::string(REACH_TEST_DATA) + "/kernelbench/eval_results.json";
const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& name, const std::string& text) {
        path = (std::filesystem::temp_directory_path() /
                ("reach_records_" + std::to_string(::getpid()) + "_" + name))
                   .string();
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
};

const EvalRecord& find(const std::vector<EvalRecord>& rs, const std::string& id,
                       const std::string& sample = "0") {
    for (const auto& r : rs) {
        if (r.problemId == id && r.sampleId == sample)
            return r;
    }
    throw std::runtime_error("no record " + id + "/" + sample);
}

// The message must name the file, the place and the field.
void expectError(const std::function<void()>& f, const std::string& file,
                 const std::vector<std::string>& parts) {
    try {
        f();
        ADD_FAILURE() << "expected InputError";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.file(), file) << what;
        for (const auto& p : parts)
            EXPECT_NE(what.find(p), std::string::npos) << what << " lacks " << p;
        EXPECT_EQ(what.find('\n'), std::string::npos);
    }
}

}  // namespace

TEST(KernelBenchBaseline, ReadsAllLevel1ProblemsOfTheRealFile) {
    const auto base = readKernelBenchBaseline(kEager, 1);
    ASSERT_EQ(base.size(), 100u);
    EXPECT_EQ(base.at(23).problemName, "23_Softmax");
    EXPECT_DOUBLE_EQ(base.at(23).meanMs, 8.52);
    EXPECT_EQ(base.at(23).hardware, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(readKernelBenchBaseline(kCompile, 3).size(), 50u);
    EXPECT_EQ(baselineKindForFile(kEager), BaselineKind::Eager);
    EXPECT_EQ(baselineKindForFile(kCompile), BaselineKind::Compile);
}

TEST(KernelBenchBaseline, MissingLevelNamesFileAndKey) {
    expectError([] { readKernelBenchBaseline(kEager, 4); }, kEager, {"\"level4\""});
}

TEST(KernelBenchRun, SpeedupIsBaselineMeanOverRuntime) {
    KernelBenchImportOptions o;
    o.level = 1;
    o.model = "test-model";
    o.backend = "cuda";
    o.dtype = "fp32";
    o.baselines = {{kEager}};
    o.categoriesCsv = kCategories;
    const auto rs = importKernelBenchRun(kRun, o);
    const json run = readJson(kRun);
    const json eager = readJson(kEager)["level1"];
    size_t samples = 0;
    for (const auto& [pid, list] : run.items())
        samples += list.size();
    ASSERT_EQ(rs.size(), samples);
    // Records follow the problem number, not JSON key order.
    EXPECT_EQ(rs.front().problemId, "1");
    EXPECT_EQ(rs.back().problemId, "47");

    const EvalRecord& relu = find(rs, "19");
    EXPECT_EQ(relu.problemName, "19_ReLU");
    EXPECT_EQ(relu.category, "elementwise");
    EXPECT_EQ(relu.level, 1);
    EXPECT_EQ(relu.model, "test-model");
    EXPECT_EQ(relu.hardware, "NVIDIA H100 80GB HBM3");
    const double runtime = run["19"][0]["runtime"].get<double>();
    EXPECT_DOUBLE_EQ(*relu.candidateTimeUs, runtime * 1000.0);
    EXPECT_DOUBLE_EQ(*relu.baselineEagerUs, eager["19_ReLU.py"]["mean"].get<double>() * 1000.0);
    EXPECT_FALSE(relu.baselineCompileUs);
    EXPECT_NEAR(*relu.speedup, eager["19_ReLU.py"]["mean"].get<double>() / runtime, 1e-12);
    EXPECT_NEAR(*relu.speedup, 1.25, 1e-3);  // what the generator aimed at
    EXPECT_TRUE(relu.isWinner());
    EXPECT_FALSE(find(rs, "19", "1").isWinner());  // 0.9x

    // runtime -1: failed, no time, no speedup, never a win.
    const EvalRecord& failed = find(rs, "5");
    EXPECT_FALSE(failed.compiled);
    EXPECT_FALSE(failed.correct);
    EXPECT_FALSE(failed.candidateTimeUs);
    EXPECT_FALSE(failed.speedup);
    const EvalRecord& wrong = find(rs, "40");
    EXPECT_TRUE(wrong.compiled);
    EXPECT_FALSE(wrong.correct);
    EXPECT_EQ(wrong.category, "normalization");
    EXPECT_NE(relu.harness.find("H100_Modal_baseline_time_torch.json"), std::string::npos);
}

TEST(KernelBenchRun, EffectiveBaselineIsTheFastestOfTheGivenFiles) {
    KernelBenchImportOptions o;
    o.baselines = {{kEager}, {kCompile}};
    const auto rs = importKernelBenchRun(kRun, o);
    const json eager = readJson(kEager)["level1"];
    const json compiled = readJson(kCompile)["level1"];
    const json run = readJson(kRun);
    for (const char* name :
         {"23_Softmax.py", "36_RMSNorm_.py", "1_Square_matrix_multiplication_.py"}) {
        const std::string id = std::string(name).substr(0, std::string(name).find('_'));
        const EvalRecord& r = find(rs, id);
        const double e = eager[name]["mean"].get<double>(),
                     c = compiled[name]["mean"].get<double>();
        EXPECT_DOUBLE_EQ(*r.baselineEagerUs, e * 1000);
        EXPECT_DOUBLE_EQ(*r.baselineCompileUs, c * 1000);
        EXPECT_NEAR(*r.speedup, std::min(e, c) / run[id][0]["runtime"].get<double>(), 1e-12)
            << name;
    }
    // 23_Softmax: torch.compile (6.55 ms) beats eager (8.52 ms), so the 2x over eager is 1.54x.
    EXPECT_NEAR(*find(rs, "23").speedup, 6.55 / run["23"][0]["runtime"].get<double>(), 1e-12);
    EXPECT_LT(*find(rs, "23").speedup, 1.6);
}

TEST(KernelBenchRun, BadEntryNamesFileProblemSampleAndKeyAndImportsNothing) {
    json run = readJson(kRun);
    run["36"][1]["runtime"] = "fast";
    TempFile f("bad_eval.json", run.dump());
    KernelBenchImportOptions o;
    o.baselines = {{kEager}};
    expectError([&] { importKernelBenchRun(f.path, o); }, f.path,
                {"problem \"36\"", "sample 1", "\"runtime\""});
    json unknown = readJson(kRun);
    unknown["101"] = unknown["1"];
    TempFile g("unknown_eval.json", unknown.dump());
    expectError([&] { importKernelBenchRun(g.path, o); }, g.path, {"problem \"101\"", "level 1"});
    expectError([&] { importKernelBenchRun(kRun, {}); }, kRun, {"baseline"});
}

TEST(KernelBenchRun, DetectedByContent) {
    EXPECT_TRUE(looksLikeKernelBenchRun(kRun));
    EXPECT_FALSE(looksLikeKernelBenchRun(kEager));
    RecordReadOptions o;
    EXPECT_EQ(detectRecordFormat(kRun, o), "kernelbench");
    EXPECT_EQ(detectRecordFormat(kSmall, o), "reach-jsonl");
    expectError([&] { readRecords(kRun, o); }, kRun, {"baseline"});
    o.kernelBench.baselines = {{kEager}};
    EXPECT_EQ(readRecords(kRun, o).size(), 10u);
    // The baseline timing files are told apart too (the GUI pairs them with the run), without
    // parsing what cannot be one: a trace, a run, a gzip, a file whose first key is not a level.
    EXPECT_TRUE(looksLikeKernelBenchBaseline(kEager));
    EXPECT_TRUE(looksLikeKernelBenchBaseline(kCompile));
    EXPECT_FALSE(looksLikeKernelBenchBaseline(kRun));
    EXPECT_FALSE(looksLikeKernelBenchBaseline(kSmall));
    EXPECT_FALSE(looksLikeKernelBenchBaseline(std::string(REACH_DATASETS) +
                                              "/profiles/h200/dlrm_inference.json.gz"));
    TempFile other("other.json", R"({"level1": {"1_X.py": {"median": 1}}})");
    EXPECT_FALSE(looksLikeKernelBenchBaseline(other.path));
    TempFile second("second.json", R"({"levels": 1, "level1": {"1_X.py": {"mean": 1}}})");
    EXPECT_FALSE(looksLikeKernelBenchBaseline(second.path));
}

TEST(ReachJsonl, ReadsTheDocumentedSchemaAndRoundTrips) {
    const auto rs = readReachJsonl(kSmall);
    ASSERT_EQ(rs.size(), 11u);
    const EvalRecord& first = rs[0];
    EXPECT_EQ(first.sourceLine, 4);  // after three comment lines
    EXPECT_EQ(first.problemName, "1_Square_matrix_multiplication_");
    // Effective baseline: the faster of eager (2660) and compile (2670).
    EXPECT_DOUBLE_EQ(*first.effectiveBaselineUs(), 2660.0);
    EXPECT_NEAR(*first.speedup, 0.8, 1e-12);
    EXPECT_EQ(rs[3].verification, Verification::Failed);
    EXPECT_EQ(rs[3].verificationReasons.at(0), "row sums 384, expected 1");
    EXPECT_NEAR(*rs[9].speedup, 3.0, 1e-12);  // compile 6000 / 2000

    std::stringstream ss;
    writeReachJsonl(ss, rs);
    const auto again = parseReachJsonl(ss, "roundtrip.jsonl");
    ASSERT_EQ(again.size(), rs.size());
    for (size_t i = 0; i < rs.size(); ++i) {
        EXPECT_EQ(recordToJson(again[i]), recordToJson(rs[i])) << i;
    }
}

TEST(ReachJsonl, BadLinesNameFileLineAndKey) {
    auto check = [](const std::string& text, const std::vector<std::string>& parts) {
        TempFile f("bad.jsonl", text);
        expectError([&] { readReachJsonl(f.path); }, f.path, parts);
    };
    const std::string good = R"({"problem_id":"1","compiled":true,"correct":true,"speedup":1.2})";
    check(good + "\n" + R"({"problem_id":"2","compiled":"yes","correct":true})" + "\n",
          {"line 2", "\"compiled\"", "true or false"});
    check(good + "\n\n" + R"({"problem_id":"2","compiled":true})" + "\n",
          {"line 3", "\"correct\""});
    check(R"({"problem_id":"2","compiled":false,"correct":true})", {"line 1", "\"compiled\""});
    check(R"({"problem_id":"2","compiled":true,"correct":true,"speedup":-2})",
          {"line 1", "\"speedup\""});
    check(R"({"compiled":true,"correct":true})", {"line 1", "problem_id"});
    check(R"({"problem_id":"2","compiled":true,"correct":true,"verification":"ok"})",
          {"line 1", "\"verification\""});
    check(good + "\n{\"problem_id\": \n", {"line 2"});
}

TEST(MappedImport, CsvWithMappingAndUnits) {
    TempFile f("board.csv",
               "task,who,lvl,ms_new,ms_ref,ok,note\n"
               "softmax_large,alpha,1,0.5,1.0,pass,\"fused, one pass\"\n"
               "layernorm,alpha,1,2.0,1.0,pass,slower\n"
               "gelu,beta,2,,,fail,\"did not \"\"compile\"\"\"\n");
    ColumnMapping m;
    m.addFromArgument("problem=task", f.path);
    m.addFromArgument("model=who", f.path);
    m.addFromArgument("level=lvl", f.path);
    m.addFromArgument("candidate_time=ms_new", f.path);
    m.addFromArgument("baseline_time=ms_ref", f.path);
    m.addFromArgument("correct=ok", f.path);
    m.addFromArgument("time_unit=ms", f.path);
    const auto rs = importMapped(f.path, m);
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(rs[0].problemId, "softmax_large");
    EXPECT_EQ(rs[0].model, "alpha");
    EXPECT_EQ(rs[0].level, 1);
    EXPECT_DOUBLE_EQ(*rs[0].candidateTimeUs, 500.0);
    EXPECT_DOUBLE_EQ(*rs[0].baselineRecordedUs, 1000.0);
    EXPECT_DOUBLE_EQ(*rs[0].speedup, 2.0);
    EXPECT_EQ(rs[0].sourceLine, 2);
    EXPECT_DOUBLE_EQ(*rs[1].speedup, 0.5);
    EXPECT_FALSE(rs[2].correct);
    EXPECT_FALSE(rs[2].compiled);  // no compiled column: compiled = correct
    EXPECT_FALSE(rs[2].speedup);
}

TEST(MappedImport, JsonListWithSpeedupOnly) {
    TempFile f("board.json", R"({"meta":"x","entries":[
        {"op":"softmax","llm":"m1","x":1.4,"cat":"softmax"},
        {"op":"embedding_bag","llm":"m1","x":"6.9x","cat":"embedding"}]})");
    ColumnMapping m;
    m.fields = {{"problem", "op"}, {"model", "llm"}, {"speedup", "x"}, {"category", "cat"}};
    const auto rs = importMapped(f.path, m);
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_TRUE(rs[0].correct);  // a leaderboard without a correctness column lists passes
    EXPECT_DOUBLE_EQ(*rs[1].speedup, 6.9);
    EXPECT_EQ(rs[1].category, "embedding");
    EXPECT_EQ(rs[1].sourceLine, 2);
}

TEST(MappedImport, ErrorsNameFileRecordAndColumn) {
    TempFile csv("bad.csv", "task,x,ok\na,1.5,yes\nb,fast,yes\n");
    ColumnMapping m;
    m.fields = {{"problem", "task"}, {"speedup", "x"}, {"correct", "ok"}};
    expectError([&] { importMapped(csv.path, m); }, csv.path, {"line 3", "column \"x\"", "number"});
    ColumnMapping missing = m;
    missing.fields["model"] = "llm";
    expectError([&] { importMapped(csv.path, missing); }, csv.path,
                {"header", "\"llm\"", "task, x, ok"});
    TempFile json("bad.json",
                  R"([{"task":"a","x":1.5,"ok":true},{"task":"b","x":2,"ok":"maybe"}])");
    expectError([&] { importMapped(json.path, m); }, json.path, {"record 2", "column \"ok\""});
    ColumnMapping noSpeed;
    noSpeed.fields = {{"problem", "task"}};
    expectError([&] { importMapped(csv.path, noSpeed); }, csv.path, {"mapping", "speedup"});
    ColumnMapping c;
    expectError([&] { c.addFromArgument("speed=x", "cli"); }, "cli",
                {"--map speed=x", "unknown field"});
}

TEST(MappedImport, PresetRoundTripsThroughJson) {
    ColumnMapping m;
    m.name = "leaderboard";
    m.fields = {{"problem", "task"}, {"speedup", "x"}};
    m.timeUnit = "ms";
    const ColumnMapping back = ColumnMapping::fromJson(m.toJson(), "preset");
    EXPECT_EQ(back.name, "leaderboard");
    EXPECT_EQ(back.fields, m.fields);
    EXPECT_EQ(back.timeUnit, "ms");
}

}  // namespace reach_test_recordimport_test
