// Google Benchmark of the profile readers on the bundled traces. Bytes processed are the
// uncompressed JSON bytes, so the reported rate is the reader's MB/s. scripts/bench runs it next
// to the Python baseline (compare.py) and prints ratios; absolute times are never pass/fail.
#include <benchmark/benchmark.h>

#include <string>

#include "core/trace/bytesource.h"
#include "core/trace/jsonscanner.h"
#include "core/trace/profilereader.h"

namespace {

std::string dataset(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/" + rel;
}

int64_t uncompressedBytes(const std::string& path) {
    reach::ByteSource src(path);
    int64_t n = 0;
    for (std::string_view c = src.next(); !c.empty(); c = src.next())
        n += int64_t(c.size());
    return n;
}

void readTrace(benchmark::State& state, const std::string& rel) {
    std::string path = dataset(rel);
    int64_t bytes = uncompressedBytes(path);
    for (auto _ : state) {
        reach::Workload w = reach::readProfile(path);
        benchmark::DoNotOptimize(w.gpuTimeUs);
    }
    state.SetBytesProcessed(state.iterations() * bytes);
}

// Inflate + hash only: the floor under the full reader.
void inflateOnly(benchmark::State& state) {
    std::string path = dataset("profiles/h200/qwen2.5-14b_inference.json.gz");
    int64_t bytes = uncompressedBytes(path);
    for (auto _ : state) {
        reach::ByteSource src(path);
        size_t n = 0;
        for (std::string_view c = src.next(); !c.empty(); c = src.next())
            n += c.size();
        benchmark::DoNotOptimize(n);
    }
    state.SetBytesProcessed(state.iterations() * bytes);
}

// Skipping the whole trace as one value: the scanner's fastest path.
void skipWholeTrace(benchmark::State& state) {
    std::string path = dataset("profiles/h200/qwen2.5-14b_inference.json.gz");
    int64_t bytes = uncompressedBytes(path);
    for (auto _ : state) {
        reach::ByteSource src(path);
        reach::JsonScanner scan(src);
        scan.skipValue();
        scan.expectEnd();
    }
    state.SetBytesProcessed(state.iterations() * bytes);
}

}  // namespace

BENCHMARK_CAPTURE(readTrace, qwen14b_inference, "profiles/h200/qwen2.5-14b_inference.json.gz")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(readTrace, qwen1_5b_training, "profiles/h200/qwen2.5-1.5b_training.json.gz")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(readTrace, nsys_saxpy, "profiles/public/pipit_saxpy_nsys_a100.sqlite")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(inflateOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(skipWholeTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
