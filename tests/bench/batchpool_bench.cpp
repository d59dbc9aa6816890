// What the batch pool adds to each job (issue 15: under 5 ms): the same fake reach-verify that
// exits at once (tests/core/batch/fakebatchverifier.cpp) run one by one with
// runVerifierProcess, against the pool (1 and 4 GPU workers), with and without storing each
// result in a project (one transaction per result). scripts/bench prints the difference per job.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/batch/batchpool.h"
#include "core/batch/batchverify.h"
#include "core/store/projectstore.h"

using namespace reach;
namespace fs = std::filesystem;

namespace {

constexpr int kJobs = 64;

struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("reach_pool_bench_" + std::to_string(getpid()));
    std::vector<BatchJob> jobs;
    Scratch() {
        fs::create_directories(dir);
        std::ofstream(dir / "problem.json") << "{}\n";
        for (int i = 0; i < kJobs; ++i) {
            BatchJob j;
            j.index = i;
            j.label = "c" + std::to_string(i);
            j.request.problemFile = (dir / "problem.json").string();
            j.request.candidateFile = (dir / ("c" + std::to_string(i) + ".py")).string();
            std::ofstream(j.request.candidateFile) << "id=" << i << "\n";
            j.kernelBenchFormat = true;  // nothing to compile ahead
            j.request.timeoutSeconds = 30;
            hashJobFiles(j);
            jobs.push_back(j);
        }
    }
    ~Scratch() { fs::remove_all(dir); }
};

Scratch& scratch() {
    static Scratch s;
    return s;
}

void BM_OneByOne(benchmark::State& state) {
    const auto& jobs = scratch().jobs;
    for (auto _ : state) {
        for (const BatchJob& j : jobs) {
            VerifyProcessRequest req = j.request;
            req.verifier = REACH_FAKE_BATCH_VERIFIER;
            req.env = {"CUDA_VISIBLE_DEVICES=0"};
            benchmark::DoNotOptimize(runVerifierProcess(req));
        }
    }
    state.counters["ms_per_job"] =
        benchmark::Counter(double(kJobs) * state.iterations() / 1000.0,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Pool(benchmark::State& state) {
    const int workers = int(state.range(0));
    const bool store = state.range(1) != 0;
    const auto& jobs = scratch().jobs;
    BatchPoolOptions o;
    o.verifier = REACH_FAKE_BATCH_VERIFIER;
    for (int w = 0; w < workers; ++w)
        o.slots.push_back({std::to_string(w), "GPU-" + std::to_string(w), "", ""});
    o.lockDir = scratch().dir.string();
    const std::string project = (scratch().dir / "bench.reach").string();
    for (auto _ : state) {
        state.PauseTiming();
        for (const char* s : {"", "-wal", "-shm"})
            fs::remove(project + s);
        std::optional<ProjectStore> ps;
        if (store)
            ps.emplace(ProjectStore::open(project));
        std::vector<EvalRecord> records(jobs.size());
        state.ResumeTiming();
        runBatch(jobs, o, [&](const BatchOutcome& out) {
            if (ps)
                storeBatchResult(*ps, records[size_t(out.job->index)], *out.job, out.result,
                                 out.run.out, out.run.seconds * 1000, o.slots[size_t(out.slot)],
                                 "bench");
        });
    }
    state.counters["ms_per_job"] =
        benchmark::Counter(double(kJobs) * state.iterations() / 1000.0,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_OneByOne)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Pool)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({4, 1})
    ->ArgNames({"workers", "store"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
