// The controller's CUDA half of a C++ verification job (docs/verifier.md, "Trust boundary"): it
// measures; core/verify/verdictpolicy.h decides (the baseline time used, the roofline floor, the
// clock agreement, the verdict). The candidate never runs here: its reach_run runs in a runner
// process (gpu/candidaterunner.cpp, reach-verify --runner-channel) that maps this process's input
// and output buffers (gpu/sharedregion.h) and answers with claims. This process draws the
// inputs, reads the outputs, inputs and canaries in its own memory, flushes L2 and queues the
// spacer, keeps its own clock, and writes the verdict.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/verify/gpumemoryledger.h"
#include "core/verify/gputiminglock.h"
#include "core/verify/harnessclock.h"
#include "core/verify/oracle.h"
#include "core/verify/perturb.h"
#include "core/verify/sampledcheck.h"
#include "core/verify/verdictpolicy.h"
#include "gpu/cudahandles.h"
#include "gpu/devicekernels.h"
#include "gpu/devicerunner.h"
#include "gpu/nvmlclocks.h"
#include "gpu/runnerclient.h"
#include "gpu/sharedregion.h"
#include "gpu/streamflags.h"
#include "gpu/verifyjob.h"

namespace reach {

namespace {

using cuda::check;
#define CK(x) check((x), #x)

// Controller-private device memory (the second input set, the flush buffer), freed on any exit.
struct Arena {
    std::vector<void*> ptrs;
    ~Arena() {
        for (void* p : ptrs)
            cudaFree(p);
    }
    void* raw(size_t bytes) {
        void* p = nullptr;
        CK(cudaMalloc(&p, std::max<size_t>(bytes, 1)));
        ptrs.push_back(p);
        return p;
    }
};

// Device-to-device copy bandwidth (bytes read + written per second, GB/s): the memory ceiling
// of the roofline, measured rather than taken from a datasheet. The fastest of ten copies: a
// floor must be what the memory can do, and a copy can only be slowed (by a clock still rising,
// or by another process's kernels, the reason callers hold the GPU's lock exclusively here).
double copyBandwidthGBs(Arena& a, cudaStream_t stream) {
    const size_t bytes = size_t(512) << 20;
    void* src = a.raw(bytes);
    void* dst = a.raw(bytes);
    CK(cudaMemsetAsync(src, 1, bytes, stream));
    cuda::Event e0 = cuda::event(), e1 = cuda::event();
    std::vector<double> ms;
    for (int i = 0; i < 12; ++i) {
        CK(cudaEventRecord(e0.get(), stream));
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
        CK(cudaEventRecord(e1.get(), stream));
        CK(cudaEventSynchronize(e1.get()));
        float m = 0;
        CK(cudaEventElapsedTime(&m, e0.get(), e1.get()));
        if (i >= 2)
            ms.push_back(m);
    }
    return 2.0 * double(bytes) / (*std::min_element(ms.begin(), ms.end()) * 1e-3) / 1e9;
}

// GPU work this process queues ahead of every call, on its own context: the L2 flush (a buffer
// of max(2 x L2, 64 MiB) written, as triton's do_bench does) and then the same write repeated
// until about kSpacerUs of GPU time is queued. The GPU runs one context at a time, so the
// runner's work waits behind it: its launch latency is hidden as in do_bench, and its kernels
// start on an L2 this process made cold. The runner can skip neither.
constexpr double kSpacerUs = 400;

struct Bench {
    cudaStream_t stream = nullptr;
    void* flush = nullptr;
    size_t flushBytes = 0;
    int flushes = 1;  // flush + spacer writes per repetition
    const NvmlClocks* nvml = nullptr;
    const StreamFlags* flags = nullptr;
    uint32_t token = 0;

    uint32_t nextToken() { return ++token; }
    // `done` written from the controller's side, on a stream of its own: the controller's stream,
    // which waits for it, is never held by a runner that died or lied.
    void unblock(uint32_t t) const {
        cudaStream_t side = nullptr;
        if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess)
            return;
        try {
            flags->write(side, StreamFlags::kDone, t);
        } catch (const std::exception&) {
        }
        cudaStreamSynchronize(side);
        cudaStreamDestroy(side);
    }

    void queue() const {
        for (int i = 0; i < flushes; ++i)
            CK(cudaMemsetAsync(flush, i & 0xff, flushBytes, stream));
    }
    void measure() {
        cuda::Event e0 = cuda::event(), e1 = cuda::event();
        std::vector<float> ms;
        for (int i = 0; i < 5; ++i) {
            CK(cudaEventRecord(e0.get(), stream));
            CK(cudaMemsetAsync(flush, i, flushBytes, stream));
            CK(cudaEventRecord(e1.get(), stream));
            CK(cudaEventSynchronize(e1.get()));
            float m = 0;
            CK(cudaEventElapsedTime(&m, e0.get(), e1.get()));
            ms.push_back(m);
        }
        std::sort(ms.begin(), ms.end());
        flushes = std::max(1, int(std::ceil(kSpacerUs / std::max(1.0, double(ms[2]) * 1000.0))));
    }
};

// One timed loop through the runner, on the controller's own clock (docs/verifier.md, "A time
// the judge owns"). Per call, queued on the controller's stream: [Epre] `before(r)` (the call's
// inputs into the shared buffers, the outputs to the sentinel), the L2 flush and the spacer [E0]
// `go`; then, once the runner has been asked, a wait for its `done` [E1] and `after(r)` (the
// outputs sampled at the secret positions, on the GPU). The runner's stream waits for `go` and
// writes `done` after the call (streamflags.h): no host between E0 and E1. The timed calls'
// readings (E1 - Epre, E0 - Epre, the runner's own event time) go to `clock`.
struct Loop {
    RepetitionClock clock;
    int clockBefore = -1, clockAfter = -1;
    std::string failure;  // a call that failed (its rc or CUDA error)
    bool cudaFault = false;
};

using Clock = std::chrono::steady_clock;

// Whether `e` completed within `seconds` (polled: a runner that never writes `done` must not hold
// the controller).
bool waitEvent(cudaEvent_t e, double seconds) {
    const auto t0 = Clock::now();
    while (true) {
        const cudaError_t q = cudaEventQuery(e);
        if (q == cudaSuccess)
            return true;
        if (q != cudaErrorNotReady)
            check(q, "cudaEventQuery");
        if (std::chrono::duration<double>(Clock::now() - t0).count() > seconds)
            return false;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

Loop timedLoop(RunnerClient& runner, Bench& bench, int reps, int warmup, double callTimeout,
               const std::function<void(int)>& before, const std::function<void(int)>& after) {
    Loop loop;
    loop.clockBefore = bench.nvml->smClockMhz();
    cuda::Event pre = cuda::event(), e0 = cuda::event(), e1 = cuda::event();
    for (int r = 0; r < warmup + reps; ++r) {
        const uint32_t token = bench.nextToken();
        CK(cudaEventRecord(pre.get(), bench.stream));
        before(r);
        bench.queue();
        // Asked while the spacer runs: its message and launches hide behind it. E0 and `go` are
        // one batch: nothing of the host between them.
        runner.sendTimed(r, token);
        CK(cudaEventRecord(e0.get(), bench.stream));
        bench.flags->write(bench.stream, StreamFlags::kGo, token);
        bench.flags->wait(bench.stream, StreamFlags::kDone, token);
        CK(cudaEventRecord(e1.get(), bench.stream));
        if (after && r >= warmup)
            after(r - warmup);
        RunnerReply reply;
        try {
            reply = runner.receive(r);
        } catch (...) {
            bench.unblock(token);
            throw;
        }
        if (!reply.cudaError.empty() || reply.rc != 0) {
            bench.unblock(token);
            loop.cudaFault = !reply.cudaError.empty();
            loop.failure = !reply.cudaError.empty()
                               ? "CUDA error at call " + std::to_string(r) + ": " + reply.cudaError
                               : "reach_run returned " + std::to_string(reply.rc) + " at call " +
                                     std::to_string(r);
            break;
        }
        if (!waitEvent(e1.get(), callTimeout)) {
            bench.unblock(token);
            throw ChannelError(ChannelError::Kind::Protocol,
                               "the runner answered call " + std::to_string(r) +
                                   " without finishing it (its stream never reached `done`)");
        }
        if (r >= warmup) {
            float total = 0, stretch = 0;
            CK(cudaEventElapsedTime(&total, pre.get(), e1.get()));
            CK(cudaEventElapsedTime(&stretch, pre.get(), e0.get()));
            loop.clock.totalUs.push_back(double(total) * 1000.0);
            loop.clock.stretchUs.push_back(double(stretch) * 1000.0);
            loop.clock.claimUs.push_back(reply.eventUs);
        }
    }
    CK(cudaStreamSynchronize(bench.stream));
    loop.clockAfter = bench.nvml->smClockMhz();
    return loop;
}

TimingStats statsOf(const std::vector<double>& figures, const Loop& loop, const Bench& bench,
                    int warmup) {
    TimingStats t = TimingStats::fromSamples(figures);
    t.warmup = warmup;
    t.l2Flushed = true;
    t.l2FlushBytes = double(bench.flushBytes);
    t.smClockBeforeMhz = loop.clockBefore;
    t.smClockAfterMhz = loop.clockAfter;
    t.clockSource = bench.nvml->available() ? "nvml" : "none";
    return t;
}

ClockSamples samplesOf(const Loop& loop, const HarnessCalibration& cal) {
    return {judgeWindows(loop.clock, cal), loop.clock.claimUs};
}

// An input set in controller-private memory, copied into the shared inputs before a call.
// An input set in controller-private memory; every timed call gets one of them made new.
struct InputSet {
    std::vector<HostTensor> host;
    std::vector<void*> device;
};

// What one timed call was given (its set and perturbation seed) and what it left at the sampled
// positions (gathered on the GPU into `device`, read back after the loop).
struct TimedCall {
    int set = 0;
    uint64_t seed = 0;
    std::vector<void*> gathered;  // per output, K elements
};

std::string self() {
    std::error_code ec;
    const std::string p = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (p.empty())
        throw std::runtime_error("cannot tell where reach-verify is (/proc/self/exe)");
    return p;
}

std::vector<HostTensor> readOutputs(const std::vector<SharedRegion>& out,
                                    const std::vector<TensorSpec>& specs) {
    std::vector<HostTensor> r;
    for (size_t k = 0; k < specs.size(); ++k) {
        HostTensor h(specs[k]);
        CK(cudaMemcpy(h.bytes.data(), out[k].data(), h.bytes.size(), cudaMemcpyDeviceToHost));
        r.push_back(std::move(h));
    }
    return r;
}

// Where the job's seconds go, phase by phase (issue 38: a first softmax verify took 58.5 s
// where it had taken 14): `phase` names the one running, for errors and for this clock.
struct PhaseClock {
    VerificationResult& r;
    std::string phase = "host_inputs";
    std::chrono::steady_clock::time_point phaseStart = std::chrono::steady_clock::now();

    void enter(const char* next) {
        const auto now = std::chrono::steady_clock::now();
        r.phaseSeconds[phase] += std::chrono::duration<double>(now - phaseStart).count();
        phase = next;
        phaseStart = now;
    }
};

// The job as runOnDevice holds it across its phases: the request, the result, the host's inputs
// and their reference (computed in the background), and what outlives the device set-up (the
// private memory, the runner, which runOnDevice's handlers end when a phase throws).
struct DeviceJob {
    const DeviceRunRequest& req;
    VerificationResult& r;
    const Problem& p;
    const Operator& op;
    const VerifyOptions& o;
    PhaseClock& phases;
    const std::vector<HostTensor>& inputs;
    std::shared_future<std::vector<std::vector<double>>>& refFuture;
    const std::vector<TensorSpec>& inSpecs;
    const std::vector<TensorSpec>& outSpecs;
    NvmlClocks& nvml;
    Arena& arena;
    std::unique_ptr<RunnerClient>& runner;
    const double callTimeout;

    void enter(const char* next) { phases.enter(next); }
};

// The controller's device state once set up (runOnGpu), for the phases after it: the shared
// buffers, its stream, the GPU's lock and the bench, and the timed calls' input sets and
// sampled positions.
//
// Timed calls, baseline's and candidate's alike (docs/verifier.md, "Every timed call can
// be checked"): two input sets drawn here and kept in private memory (set 0 the
// correctness run's, set 1 from the next seed); every call gets one of them, chosen by a
// schedule the runner never sees, with every floating element multiplied by its own
// factor from a secret seed (core/verify/perturb.h) as it is written into the shared
// buffers: no two calls see the same inputs, so no cache of any key is ever right. Each
// call's outputs are sampled at secret positions on the GPU; after the loop, calls chosen
// then are checked against the reference of their own inputs.
struct Controller {
    Controller(DeviceJob& job, GpuTimingLock& gpuLock, const cuda::Stream& stream,
               const std::vector<SharedRegion>& in, const std::vector<SharedRegion>& out,
               Bench& bench)
        : job(job),
          p(job.p),
          op(job.op),
          outSpecs(job.outSpecs),
          arena(job.arena),
          gpuLock(gpuLock),
          stream(stream),
          in(in),
          out(out),
          bench(bench),
          timing(job.o.timing) {}

    DeviceJob& job;
    const Problem& p;
    const Operator& op;
    const std::vector<TensorSpec>& outSpecs;
    Arena& arena;
    GpuTimingLock& gpuLock;
    const cuda::Stream& stream;
    const std::vector<SharedRegion>& in;
    const std::vector<SharedRegion>& out;
    Bench& bench;

    const bool timing;
    InputSet sets[2];
    std::vector<TimedCall> calls;  // numbered per loop: the loop now running
    SamplePositions positions;
    std::vector<void*> positionsDevice;
    std::mt19937_64 rng;
    std::vector<std::vector<void*>> gatheredBuffers;  // per timed call, per output

    void sentinelOutputs() const {
        for (size_t k = 0; k < out.size(); ++k)
            CK(cudaMemsetAsync(out[k].data(), kSentinelByte, outSpecs[k].bytes(), stream.get()));
    }

    // The two input sets in private memory, the secret seed and the sampled positions.
    void drawInputSets() {
        sets[0].host = job.inputs;
        sets[1].host = op.makeInputs(p, job.req.seed + 1);
        for (InputSet& s : sets)
            for (const HostTensor& t : s.host) {
                s.device.push_back(arena.raw(t.bytes.size()));
                CK(cudaMemcpy(s.device.back(), t.bytes.data(), t.bytes.size(),
                              cudaMemcpyHostToDevice));
            }
        std::random_device seedSource;
        rng.seed((uint64_t(seedSource()) << 32) ^ seedSource());
        positions = drawSamplePositions(outSpecs, rng);
        for (const auto& pos : positions.perOutput) {
            positionsDevice.push_back(arena.raw(pos.size() * sizeof(int64_t)));
            CK(cudaMemcpy(positionsDevice.back(), pos.data(), pos.size() * sizeof(int64_t),
                          cudaMemcpyHostToDevice));
        }
    }

    void newCalls(int n) {
        calls.assign(size_t(n), TimedCall{});
        for (TimedCall& c : calls) {
            c.set = int(rng() & 1);
            c.seed = rng();
        }
    }

    static uint64_t inputSeed(uint64_t callSeed, size_t k) {
        return perturbHash(callSeed, uint64_t(k) + 1);
    }

    void loadSet(int rep) const {
        const TimedCall& c = calls[size_t(rep)];
        const InputSet& s = sets[c.set];
        for (size_t k = 0; k < in.size(); ++k)
            DeviceKernels::get().perturb(in[k].data(), s.device[k], s.host[k].numel(),
                                         s.host[k].spec.dtype, inputSeed(c.seed, k), stream.get());
        sentinelOutputs();
    }

    void gather(int timedRep) const {
        if (size_t(timedRep) >= gatheredBuffers.size())
            return;
        for (size_t k = 0; k < out.size(); ++k)
            DeviceKernels::get().gather(gatheredBuffers[size_t(timedRep)][k], out[k].data(),
                                        static_cast<const int64_t*>(positionsDevice[k]),
                                        int64_t(positions.perOutput[k].size()),
                                        int(dtypeSize(outSpecs[k].dtype)), stream.get());
    }

    void prepareGathers(int reps) {
        if (!gatheredBuffers.empty())
            return;  // one set of buffers for every loop (as many timed calls each)
        for (int t = 0; t < reps; ++t) {
            std::vector<void*> perOutput;
            for (size_t k = 0; k < out.size(); ++k)
                perOutput.push_back(
                    arena.raw(positions.perOutput[k].size() * dtypeSize(outSpecs[k].dtype)));
            gatheredBuffers.push_back(std::move(perOutput));
        }
    }

    // After a loop: calls chosen now (the last, one of each set, the others at random, those
    // of the second half first) against the reference of their own inputs at the sampled
    // positions: ten, or as many as the host computes references for in about 10 s (at least
    // three).
    std::optional<std::string> checkCalls(int warmup, int reps) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<int> chosen = {reps - 1};
        std::vector<int> order(size_t(std::max(0, reps - 1)));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::stable_partition(order.begin(), order.end(), [&](int t) { return t >= reps / 2; });
        bool sets01[2] = {false, false};
        sets01[calls[size_t(warmup + reps - 1)].set] = true;
        for (int t : order) {
            const int set = calls[size_t(warmup + t)].set;
            if (!sets01[set]) {
                sets01[set] = true;
                chosen.push_back(t);
            }
        }
        for (int t : order)
            if (int(chosen.size()) < std::min(10, reps) &&
                std::find(chosen.begin(), chosen.end(), t) == chosen.end())
                chosen.push_back(t);
        int checked = 0;
        for (int t : chosen) {
            if (checked >= 3 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 10)
                break;
            ++checked;
            const TimedCall& c = calls[size_t(warmup + t)];
            std::vector<HostTensor> given = sets[c.set].host;
            for (size_t k = 0; k < given.size(); ++k)
                perturbHost(given[k], inputSeed(c.seed, k));
            const auto want = op.referenceAt(p, given, positions.perOutput);
            std::vector<HostTensor> got;
            for (size_t k = 0; k < out.size(); ++k) {
                HostTensor g(TensorSpec{
                    outSpecs[k].name, outSpecs[k].dtype, {int64_t(positions.perOutput[k].size())}});
                CK(cudaMemcpy(g.bytes.data(), gatheredBuffers[size_t(t)][k], g.bytes.size(),
                              cudaMemcpyDeviceToHost));
                got.push_back(std::move(g));
            }
            if (auto bad = checkGathered(got, want, job.req.thresholds))
                return "call " + std::to_string(warmup + t + 1) + " of " +
                       std::to_string(warmup + reps) + ": " + *bad;
        }
        return std::nullopt;
    }

    Loop runLoop() {
        const VerifyOptions& o = job.o;
        newCalls(o.warmup + o.reps);
        prepareGathers(o.reps);
        return timedLoop(
            *job.runner, bench, o.reps, o.warmup, job.callTimeout, [&](int rep) { loadSet(rep); },
            [&](int timedRep) { gather(timedRep); });
    }
};

// What the trusted phase leaves: the baseline, and its loop with the harness calibration it
// gave (none when it was not timed).
struct BaselineRun {
    std::optional<Loop> calibration;
    std::optional<HarnessCalibration> harness;
    BaselineInfo baseline;
};

// Trusted phase: Reach's baseline (cuBLAS, or its own kernel), loaded before the
// candidate and timed exactly the way the candidate will be: the baseline's time, and
// the calibration of the harness's part of the controller's window (harnessclock.h).
void timeBaseline(Controller& c, BaselineRun& base) {
    DeviceJob& job = c.job;
    const Problem& p = job.p;
    const VerifyOptions& o = job.o;
    BaselineInfo& baseline = base.baseline;
    job.enter("baseline");
    nlohmann::json use;
    if (o.baseline && p.op == "matmul") {
        use = {{"which", "cublas"},
               {"m", p.shape("a")[0]},
               {"k", p.shape("a")[1]},
               {"n", p.shape("b")[1]},
               {"dtype", p.dtype == DType::BF16 ? "bf16" : "f32"}};
        baseline.kind = "cublas";
        baseline.source = "cublasGemmEx (CUBLAS_COMPUTE_32F, default algorithm)";
    } else if (o.baseline && !job.req.baselineObject.empty()) {
        use = {{"which", "object"}, {"path", job.req.baselineObject}};
        baseline.kind = "reach_kernel";
        baseline.source = "resources/baselines/" + p.op + ".cu";
    }
    std::string why;
    if (!use.is_null() && job.runner->use(use, &why)) {
        c.gpuLock.exclusive();
        Loop b = c.runLoop();
        c.gpuLock.shared();
        // Its clocks calibrate the candidate's loop whatever its values were; a loop that
        // faulted or stopped early has too few repetitions to.
        if (!b.cudaFault && int(b.clock.totalUs.size()) == o.reps) {
            base.harness = calibrateHarness(b.clock, true);
            baseline.timing = statsOf(judgeFigures(b.clock, *base.harness), b, c.bench, o.warmup);
            base.calibration = std::move(b);
        } else {
            baseline.note = "baseline could not be timed: " + b.failure;
        }
    } else if (!use.is_null()) {
        baseline.note = "baseline could not be loaded: " + why;
    }
}

// The candidate, loaded in the runner: from here on everything it says is a claim. False when
// it did not load (the verdict given, the runner ended).
bool loadCandidate(Controller& c) {
    DeviceJob& job = c.job;
    VerificationResult& r = job.r;
    job.enter("load");
    std::string loadError;
    if (!job.runner->use({{"which", "object"}, {"path", job.req.candidateObject}}, &loadError)) {
        r.verdict = verdict::kCompileError;
        r.reasons = {"load: " + loadError};
        r.compile.log += "\n" + loadError;
        job.runner->end();
        r.log += job.runner->log();
        if (job.refFuture.valid())
            job.refFuture.wait();
        return false;
    }
    return true;
}

// What the correctness run left, as this process read it back: the runner's rc, the outputs,
// the inputs, and the canary bytes changed around them.
struct CorrectnessRun {
    int rc = 0;
    std::vector<HostTensor> outputs;
    std::vector<HostTensor> inputsAfter;
    int64_t canaryDamage = 0;
};

// The correctness run. False when the candidate crashed in it (the verdict given, the runner
// ended).
bool runForCorrectness(Controller& c, CorrectnessRun& run) {
    DeviceJob& job = c.job;
    VerificationResult& r = job.r;
    job.enter("candidate");
    // The correctness run's inputs: the baseline's loop left either set in the buffers.
    if (c.timing)
        for (size_t k = 0; k < c.in.size(); ++k)
            CK(cudaMemcpyAsync(c.in[k].data(), c.sets[0].device[k], job.inputs[k].bytes.size(),
                               cudaMemcpyDeviceToDevice, c.stream.get()));
    c.sentinelOutputs();
    for (const SharedRegion& s : c.in)
        s.fillCanaries();
    for (const SharedRegion& s : c.out)
        s.fillCanaries();
    CK(cudaStreamSynchronize(c.stream.get()));
    const RunnerReply first = job.runner->run(-1);
    if (!first.cudaError.empty()) {
        r.verdict = verdict::kCrashed;
        r.reasons = {"crashed: " + first.cudaError};
        job.runner->end();
        r.log += job.runner->log();
        job.refFuture.wait();
        return false;
    }
    run.rc = first.rc;
    job.enter("readback");
    run.outputs = readOutputs(c.out, job.outSpecs);
    for (size_t k = 0; k < c.in.size(); ++k) {
        HostTensor h(job.inputs[k].spec);
        CK(cudaMemcpy(h.bytes.data(), c.in[k].data(), h.bytes.size(), cudaMemcpyDeviceToHost));
        run.inputsAfter.push_back(std::move(h));
        run.canaryDamage += c.in[k].canaryDamage();
    }
    for (const SharedRegion& s : c.out)
        run.canaryDamage += s.canaryDamage();
    return true;
}

// What timing the candidate found beyond r.timing: a timed call that failed or whose output
// did not match, and how the judge's clock and the runner's claims agree.
struct CandidateTiming {
    std::optional<std::string> timedFailure;
    std::optional<ClockAgreement> agreement;
};

// Timing (also for failing candidates: the user sees what a cheat would have scored), the
// speedup and the roofline. False when the candidate crashed during it (the verdict given, the
// runner ended).
bool timeCandidate(Controller& c, BaselineRun& base, CandidateTiming& timed) {
    DeviceJob& job = c.job;
    VerificationResult& r = job.r;
    const Problem& p = job.p;
    const VerifyOptions& o = job.o;
    BaselineInfo& baseline = base.baseline;
    job.enter("timing");
    c.gpuLock.exclusive();
    Loop loop = c.runLoop();
    // The roofline's bandwidth, measured alone on the GPU as the loop was: measured
    // beside other jobs it read 15 % low on an H100 and put an honest ReLU "below the
    // floor" (docs/measurements/2026-12-07-verdicts-under-load.md).
    const double copyGBs = copyBandwidthGBs(job.arena, c.stream.get());
    c.gpuLock.shared();
    if (loop.cudaFault) {
        r.verdict = verdict::kCrashed;
        r.reasons = {"crashed: " + loop.failure + " (during timing)"};
        job.runner->end();
        r.log += job.runner->log();
        return false;
    }
    if (base.harness) {
        // The judge's own figure: its windows less the calibrated harness gap.
        r.timing = statsOf(judgeFigures(loop.clock, *base.harness), loop, c.bench, o.warmup);
        timed.agreement = clockAgreement(samplesOf(loop, *base.harness),
                                         samplesOf(*base.calibration, *base.harness), false);
    } else {
        // No calibration (no baseline): the runner's claims, which nothing checks.
        r.timing = statsOf(loop.clock.claimUs, loop, c.bench, o.warmup);
        timed.agreement = clockAgreement(samplesOf(loop, HarnessCalibration{}), {}, false);
    }
    if (!loop.failure.empty())
        timed.timedFailure = loop.failure;
    else {
        job.enter("timed outputs");
        timed.timedFailure = c.checkCalls(o.warmup, o.reps);
    }

    if (o.recordedBaselineUs > 0) {
        baseline.recordedUs = o.recordedBaselineUs;
        if (baseline.kind.empty()) {
            baseline.kind = "recorded";
            baseline.source = o.recordedBaselineSource;
        }
    }
    chooseBaselineTime(baseline);
    if (!baseline.kind.empty())
        r.baseline = baseline;
    r.speedup = speedupOver(baseline, *r.timing);
    job.enter("roofline");
    r.roofline = rooflineFloor(job.op.minimalBytes(p, job.inputs), job.op.flops(p), copyGBs,
                               peakTflops(r.device.arch, p.dtype), r.timing->medianUs,
                               baseline.timing ? baseline.timing->medianUs : 0);
    return true;
}

// The oracle, on the host, on what this process read back; then the timed calls' check and
// the clocks' agreement.
void judge(DeviceJob& job, const CorrectnessRun& run, const CandidateTiming& timed) {
    VerificationResult& r = job.r;
    job.enter("oracle");
    const std::vector<std::vector<double>>& reference = job.refFuture.get();
    OracleInput oi;
    oi.problem = &job.p;
    oi.op = &job.op;
    oi.inputs = &job.inputs;
    oi.inputsAfter = &run.inputsAfter;
    oi.outputs = &run.outputs;
    oi.reference = &reference;
    oi.canaryBytesChanged = run.canaryDamage;
    oi.thresholds = job.req.thresholds;
    applyVerdict(r, run.rc, evaluateOutputs(oi));
    if (r.timing) {
        const bool ok = !timed.timedFailure;
        r.checks.push_back({"timed_outputs", ok ? 0.0 : 1.0, 0, ok,
                            ok ? "every timed call's output matched its input set's reference "
                                 "at the sampled elements"
                               : *timed.timedFailure});
        if (!ok) {
            r.reasons.push_back("timed_outputs: " + *timed.timedFailure +
                                " (stale, cached, skipped or late work?)");
            r.verdict = verdict::kFail;
        }
        applyClockAgreement(r, *timed.agreement);
    }
}

// The phases after the device set-up, in order: the baseline, the candidate's load, its
// correctness run, its timing, the oracle. False when one ended the job early (its verdict
// given).
bool runPhases(Controller& c) {
    BaselineRun base;
    if (c.timing)
        timeBaseline(c, base);
    if (!loadCandidate(c))
        return false;
    CorrectnessRun run;
    if (!runForCorrectness(c, run))
        return false;
    CandidateTiming timed;
    if (c.timing && run.rc == 0 && !timeCandidate(c, base, timed))
        return false;
    c.job.runner->end();
    c.job.r.log += c.job.runner->log();
    judge(c.job, run, timed);
    return true;
}

// The shared inputs (the host's inputs copied in) and outputs (the sentinel), which the runner
// maps.
void createSharedBuffers(const DeviceJob& job, std::vector<SharedRegion>& in,
                         std::vector<SharedRegion>& out) {
    for (const HostTensor& t : job.inputs) {
        in.push_back(SharedRegion::create(t.bytes.size()));
        CK(cudaMemcpy(in.back().data(), t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice));
    }
    for (const TensorSpec& s : job.outSpecs) {
        out.push_back(SharedRegion::create(s.bytes()));
        CK(cudaMemset(out.back().data(), kSentinelByte, s.bytes()));
    }
    CK(cudaDeviceSynchronize());
}

// The job on the GPU: the device set-up (memory admission, the GPU's lock, the shared buffers,
// the runner, the bench), then the phases. Everything set up here lives until the phases are
// done. False when a phase ended the job early.
bool runOnGpu(DeviceJob& job) {
    VerificationResult& r = job.r;
    CK(cudaSetDevice(0));
    CK(cudaFree(nullptr));
    // Beside other jobs on this GPU, start only when this job's memory fits (memory
    // admission, core/verify/gpumemoryledger.h): the shared inputs and outputs, the two
    // timed input sets, the L2 flush, and the runner's and this process's contexts.
    int64_t inBytes = 0, outBytes = 0;
    for (const HostTensor& t : job.inputs)
        inBytes += int64_t(t.bytes.size());
    for (const TensorSpec& s : job.outSpecs)
        outBytes += int64_t(s.bytes());
    size_t freeB = 0, totalB = 0;
    CK(cudaMemGetInfo(&freeB, &totalB));
    const int64_t need = 3 * inBytes + 2 * outBytes + (int64_t(2) << 30);
    const GpuMemoryBooking memory(
        GpuMemoryBooking::pathFromEnvironment(), need, int64_t(totalB), [] {
            size_t f = 0, t = 0;
            return cudaMemGetInfo(&f, &t) == cudaSuccess ? int64_t(f) : int64_t(-1);
        });
    if (memory.waitedSeconds() > 0.5)
        r.log += "waited " + std::to_string(int(memory.waitedSeconds())) +
                 " s for GPU memory beside other jobs\n";
    // Timed loops hold the GPU's lock exclusively; the rest of the job holds it shared.
    GpuTimingLock gpuLock(GpuTimingLock::pathFromEnvironment(), GpuTimingLock::Mode::Shared);
    if (!gpuLock.error().empty())
        r.log += "timing lock not taken: " + gpuLock.error() + "\n";
    const cuda::Stream stream = cuda::nonBlockingStream();
    std::vector<SharedRegion> in, out;
    createSharedBuffers(job, in, out);
    std::vector<const SharedRegion*> inPtrs, outPtrs;
    for (const SharedRegion& s : in)
        inPtrs.push_back(&s);
    for (const SharedRegion& s : out)
        outPtrs.push_back(&s);
    // The words the controller's and the runner's streams meet on (streamflags.h).
    const SharedRegion flagsRegion = SharedRegion::create(64);
    CK(cudaMemset(flagsRegion.data(), 0, 64));
    CK(cudaDeviceSynchronize());
    const StreamFlags flags(flagsRegion.data());
    job.enter("runner");
    job.runner = std::make_unique<RunnerClient>(self(), inPtrs, job.inSpecs, outPtrs, job.outSpecs,
                                                flagsRegion, job.callTimeout);

    Bench bench;
    bench.stream = stream.get();
    bench.flushBytes = std::max<size_t>(size_t(2 * r.device.l2Bytes), size_t(64) << 20);
    bench.flush = job.arena.raw(bench.flushBytes);
    bench.nvml = &job.nvml;
    bench.flags = &flags;
    bench.measure();

    Controller c(job, gpuLock, stream, in, out, bench);
    if (c.timing)
        c.drawInputSets();
    return runPhases(c);
}

}  // namespace

int visibleDeviceCount() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

double measureCopyBandwidthGBs() {
    if (visibleDeviceCount() == 0)
        return 0;
    Arena arena;
    CK(cudaSetDevice(0));
    const cuda::Stream stream = cuda::nonBlockingStream();
    const GpuTimingLock gpuLock(GpuTimingLock::pathFromEnvironment());  // timed like a job
    return copyBandwidthGBs(arena, stream.get());
}

DeviceInfo queryDevice() {
    DeviceInfo d;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        // Said as the GUI says it: the usual causes first, CUDA's own words after. (Without any
        // NVIDIA driver the runtime reports an "insufficient" driver, which reads as a version
        // problem to a user whose machine simply has no GPU.)
        const std::string cuda =
            e != cudaSuccess ? std::string(" (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")"
                             : std::string();
        if (e == cudaErrorInsufficientDriver && !std::filesystem::exists("/proc/driver/nvidia"))
            d.reason = "no GPU: no NVIDIA driver is loaded on this machine" + cuda;
        else if (e == cudaErrorInsufficientDriver)
            d.reason =
                "the NVIDIA driver is older than the CUDA runtime Reach was built with" + cuda;
        else if (e == cudaSuccess || e == cudaErrorNoDevice)
            d.reason =
                "no GPU: no CUDA device visible" +
                std::string(std::getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES is set)"
                                                                : "");
        else
            d.reason = "no usable GPU" + cuda;
        return d;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        d.reason = "cudaGetDeviceProperties failed";
        return d;
    }
    d.available = true;
    d.name = p.name;
    d.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
    d.smCount = p.multiProcessorCount;
    d.l2Bytes = p.l2CacheSize;
    d.memoryBytes = int64_t(p.totalGlobalMem);
    d.uuid = formatGpuUuid(reinterpret_cast<const unsigned char*>(p.uuid.bytes));
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"))
        d.visibleDevices = v;
    int dv = 0, rv = 0;
    cudaDriverGetVersion(&dv);
    cudaRuntimeGetVersion(&rv);
    d.runtimeVersion = std::to_string(rv / 1000) + "." + std::to_string(rv % 1000 / 10);
    d.driverVersion = "cuda " + std::to_string(dv / 1000) + "." + std::to_string(dv % 1000 / 10);
    NvmlClocks nvml;
    if (!nvml.driverVersion().empty())
        d.driverVersion = nvml.driverVersion();
    return d;
}

void runOnDevice(const DeviceRunRequest& req, VerificationResult& r) {
    const Problem& p = *req.problem;
    const Operator& op = *req.op;
    const VerifyOptions& o = *req.options;

    PhaseClock phases{r};

    // Host side first: fresh inputs from the seed, and the double-precision reference in the
    // background while the GPU runs and times.
    std::vector<HostTensor> inputs = op.makeInputs(p, req.seed);
    std::shared_future<std::vector<std::vector<double>>> refFuture =
        std::async(std::launch::async, [&] { return op.reference(p, inputs); }).share();
    const auto inSpecs = op.inputSpecs(p);
    const auto outSpecs = op.outputSpecs(p);
    NvmlClocks nvml;
    Arena arena;
    phases.enter("setup");
    std::unique_ptr<RunnerClient> runner;
    const double callTimeout = 300;
    DeviceJob job{req,       r,       p,        op,   o,     phases, inputs,
                  refFuture, inSpecs, outSpecs, nvml, arena, runner, callTimeout};
    try {
        if (!runOnGpu(job))
            return;
    } catch (const ChannelError& e) {
        // The runner died, stopped answering or broke the protocol: the candidate's doing.
        const bool silent = e.kind() == ChannelError::Kind::Silent;
        r.verdict = silent ? verdict::kTimeout : verdict::kCrashed;
        r.reasons = {std::string(silent ? "timeout: " : "crashed: ") + "the runner " +
                     (silent ? "stopped answering" : "broke off") + " in phase " + phases.phase +
                     " (" + e.what() + ")"};
        if (runner) {
            runner->end();
            r.log += runner->log();
        }
        if (refFuture.valid())
            refFuture.wait();
    } catch (const cuda::Error& e) {
        // A fault in this process after the candidate ran (a poisoned context is the device's)
        // is reported with the phase; the candidate's own faults come back as its reply.
        r.verdict = verdict::kError;
        r.reasons = {std::string("error: ") + e.what()};
        r.log += std::string("CUDA error in phase ") + phases.phase + ": " + e.what() + "\n";
        if (runner)
            runner->end();
        if (refFuture.valid())
            refFuture.wait();
    } catch (const std::exception& e) {
        r.verdict = verdict::kError;
        r.reasons = {std::string("error: ") + e.what()};
        r.log += std::string("error in phase ") + phases.phase + ": " + e.what() + "\n";
        if (runner)
            runner->end();
        if (refFuture.valid())
            refFuture.wait();
    }
    phases.enter("");
    r.phaseSeconds.erase("");
}

}  // namespace reach
