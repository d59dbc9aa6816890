// The CUDA half of a verification job: it measures; core/verify/verdictpolicy.h decides (the
// baseline time used, the roofline floor, the verdict). Only this file and its helpers in gpu/
// see CUDA.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <stdexcept>

#include "core/verify/gputiminglock.h"
#include "core/verify/oracle.h"
#include "core/verify/verdictpolicy.h"
#include "gpu/cudahandles.h"
#include "gpu/devicerunner.h"
#include "gpu/nvmlclocks.h"
#include "gpu/verifyjob.h"
#include "reach/candidate.h"

namespace reach {

namespace {

using cuda::check;
#define CK(x) check((x), #x)

// One tensor with a canary region before and after it (out-of-bounds writes land there).
struct DevTensor {
    uint8_t* base = nullptr;
    uint8_t* data = nullptr;
    size_t bytes = 0;
    size_t total = 0;
};

int64_t canaryDamage(const DevTensor& t) {
    std::vector<uint8_t> before(kCanaryBytes), after(t.total - kCanaryBytes - t.bytes);
    CK(cudaMemcpy(before.data(), t.base, before.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(after.data(), t.data + t.bytes, after.size(), cudaMemcpyDeviceToHost));
    int64_t n = 0;
    for (uint8_t b : before)
        n += b != kCanaryByte;
    for (uint8_t b : after)
        n += b != kCanaryByte;
    return n;
}

reach_tensor view(const DevTensor& d, const TensorSpec& s) {
    reach_tensor t{};
    t.data = d.data;
    t.dtype = int32_t(s.dtype);
    t.ndim = int32_t(s.shape.size());
    for (size_t i = 0; i < s.shape.size() && i < 8; ++i)
        t.shape[i] = s.shape[i];
    return t;
}

// Owns every device allocation of the job, freed on any exit path.
struct Arena {
    std::vector<void*> ptrs;
    ~Arena() {
        for (void* p : ptrs)
            cudaFree(p);
    }
    DevTensor tensor(size_t bytes) {
        DevTensor t;
        t.bytes = bytes;
        t.total = 2 * kCanaryBytes + (bytes + 255) / 256 * 256;
        t.base = static_cast<uint8_t*>(raw(t.total));
        t.data = t.base + kCanaryBytes;
        CK(cudaMemset(t.base, kCanaryByte, t.total));
        return t;
    }
    void* raw(size_t bytes) {
        void* p = nullptr;
        CK(cudaMalloc(&p, bytes));
        ptrs.push_back(p);
        return p;
    }
};

using Launch = std::function<int()>;

// The L2 flush buffer and the clock reader a job's timed loops share.
struct TimingContext {
    cudaStream_t stream = nullptr;
    void* flush = nullptr;
    size_t flushBytes = 0;
    int reps = 100;
    int warmup = 10;
    const NvmlClocks* nvml = nullptr;
};

// Cold-L2 timing: before every repetition, outside the timed window, write a buffer of at
// least twice the L2 size; each repetition has its own event pair; median of `reps`.
TimingStats timeLaunch(const Launch& launch, const TimingContext& c) {
    for (int i = 0; i < c.warmup; ++i) {
        CK(cudaMemsetAsync(c.flush, i & 0xff, c.flushBytes, c.stream));
        if (int rc = launch())
            throw std::runtime_error("launch returned " + std::to_string(rc));
    }
    CK(cudaStreamSynchronize(c.stream));
    const int clockBefore = c.nvml->smClockMhz();
    std::vector<cuda::Event> start, stop;
    for (int i = 0; i < c.reps; ++i) {
        start.push_back(cuda::event());
        stop.push_back(cuda::event());
    }
    for (int i = 0; i < c.reps; ++i) {
        CK(cudaMemsetAsync(c.flush, i & 0xff, c.flushBytes, c.stream));
        CK(cudaEventRecord(start[size_t(i)].get(), c.stream));
        if (int rc = launch())
            throw std::runtime_error("launch returned " + std::to_string(rc));
        CK(cudaEventRecord(stop[size_t(i)].get(), c.stream));
    }
    CK(cudaStreamSynchronize(c.stream));
    const int clockAfter = c.nvml->smClockMhz();
    std::vector<double> us;
    for (int i = 0; i < c.reps; ++i) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, start[size_t(i)].get(), stop[size_t(i)].get()));
        us.push_back(double(ms) * 1000.0);
    }
    TimingStats t = TimingStats::fromSamples(us);
    t.warmup = c.warmup;
    t.l2Flushed = true;
    t.l2FlushBytes = double(c.flushBytes);
    t.smClockBeforeMhz = clockBefore;
    t.smClockAfterMhz = clockAfter;
    t.clockSource = c.nvml->available() ? "nvml" : "none";
    return t;
}

// Device-to-device copy bandwidth (bytes read + written per second, GB/s): the memory ceiling
// of the roofline, measured rather than taken from a datasheet.
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
    std::sort(ms.begin(), ms.end());
    return 2.0 * double(bytes) / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

// A loaded shared object; dlclose is left to process exit (one job per process, and a
// candidate's static destructors must not run while its kernels may still be queued).
struct Loaded {
    void* handle = nullptr;
    reach_run_fn fn = nullptr;
    std::string error;
};

Loaded loadObject(const std::string& so) {
    Loaded l;
    l.handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) {
        const char* e = dlerror();
        l.error = std::string("dlopen: ") + (e ? e : "?");
        return l;
    }
    l.fn = reinterpret_cast<reach_run_fn>(dlsym(l.handle, "reach_run"));
    if (!l.fn)
        l.error = "the shared object does not export extern \"C\" reach_run";
    return l;
}

// The job's device buffers: inputs uploaded, outputs filled with the sentinel.
struct Buffers {
    std::vector<DevTensor> in, out;
    std::vector<reach_tensor> vin, vout;
};

Buffers upload(Arena& arena, const std::vector<HostTensor>& inputs,
               const std::vector<TensorSpec>& outSpecs) {
    Buffers b;
    for (const auto& t : inputs) {
        b.in.push_back(arena.tensor(t.bytes.size()));
        CK(cudaMemcpy(b.in.back().data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice));
        b.vin.push_back(view(b.in.back(), t.spec));
    }
    for (const auto& s : outSpecs) {
        b.out.push_back(arena.tensor(s.bytes()));
        CK(cudaMemset(b.out.back().data, kSentinelByte, s.bytes()));
        b.vout.push_back(view(b.out.back(), s));
    }
    CK(cudaDeviceSynchronize());
    return b;
}

// What the correctness run left behind: outputs, inputs as they are now, canary damage.
struct Readback {
    std::vector<HostTensor> outputs, inputsAfter;
    int64_t canaryDamage = 0;
};

Readback readBack(const Buffers& b, const std::vector<HostTensor>& inputs,
                  const std::vector<TensorSpec>& outSpecs) {
    Readback r;
    for (size_t k = 0; k < outSpecs.size(); ++k) {
        HostTensor h(outSpecs[k]);
        CK(cudaMemcpy(h.bytes.data(), b.out[k].data, h.bytes.size(), cudaMemcpyDeviceToHost));
        r.outputs.push_back(std::move(h));
        r.canaryDamage += canaryDamage(b.out[k]);
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
        HostTensor h(inputs[k].spec);
        CK(cudaMemcpy(h.bytes.data(), b.in[k].data, h.bytes.size(), cudaMemcpyDeviceToHost));
        r.inputsAfter.push_back(std::move(h));
        r.canaryDamage += canaryDamage(b.in[k]);
    }
    return r;
}

// The baseline timed the same way on the same buffers: cuBLAS for matmul, else the Reach
// baseline kernel; a failure to time it is a note, not the candidate's verdict.
BaselineInfo timeBaseline(const Problem& p, const std::string& baselineObject, Buffers& b,
                          const TimingContext& tc) {
    BaselineInfo info;
    try {
        if (p.op == "matmul") {
            info.kind = "cublas";
            info.source = "cublasGemmEx (CUBLAS_COMPUTE_32F, default algorithm)";
            cuda::Cublas h = cuda::cublasOn(tc.stream);
            const int64_t M = p.shape("a")[0], K = p.shape("a")[1], N = p.shape("b")[1];
            const cudaDataType dt = p.dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
            const float alpha = 1, beta = 0;
            // Row-major C = A B is column-major C^T = B^T A^T.
            const Launch gemm = [&] {
                return int(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K),
                                        &alpha, b.in[1].data, dt, int(N), b.in[0].data, dt, int(K),
                                        &beta, b.out[0].data, dt, int(N), CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT));
            };
            info.timing = timeLaunch(gemm, tc);
        } else if (!baselineObject.empty()) {
            const Loaded base = loadObject(baselineObject);
            if (!base.fn)
                throw std::runtime_error(base.error);
            info.kind = "reach_kernel";
            info.source = "resources/baselines/" + p.op + ".cu";
            const Launch launch = [&] {
                return base.fn(b.vin.data(), int(b.vin.size()), b.vout.data(), int(b.vout.size()),
                               tc.stream);
            };
            info.timing = timeLaunch(launch, tc);
        }
    } catch (const std::exception& e) {
        info.note = std::string("baseline could not be timed: ") + e.what();
        CK(cudaGetLastError());
    }
    return info;
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
        d.reason = e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e)
                                    : "no CUDA device visible";
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

    Loaded cand = loadObject(req.candidateObject);
    if (!cand.fn) {
        r.verdict = verdict::kCompileError;
        r.reasons = {"load: " + cand.error};
        r.compile.log += "\n" + cand.error;
        return;
    }

    // Host side first: fresh inputs from the seed, and the double-precision reference in the
    // background while the GPU runs and times.
    std::vector<HostTensor> inputs = op.makeInputs(p, req.seed);
    auto refFuture = std::async(std::launch::async, [&] { return op.reference(p, inputs); });
    const auto outSpecs = op.outputSpecs(p);
    NvmlClocks nvml;
    Arena arena;
    std::string phase = "setup";
    try {
        CK(cudaSetDevice(0));
        const cuda::Stream stream = cuda::nonBlockingStream();
        Buffers bufs = upload(arena, inputs, outSpecs);

        // The correctness run.
        phase = "candidate";
        const Launch launch = [&] {
            return cand.fn(bufs.vin.data(), int(bufs.vin.size()), bufs.vout.data(),
                           int(bufs.vout.size()), stream.get());
        };
        const int rc = launch();
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(stream.get()));
        phase = "readback";
        const Readback after = readBack(bufs, inputs, outSpecs);

        // Timing (also for failing candidates: the user sees what a cheat would have scored).
        TimingContext tc;
        tc.stream = stream.get();
        tc.flushBytes = std::max<size_t>(size_t(2 * r.device.l2Bytes), size_t(64) << 20);
        tc.flush = arena.raw(tc.flushBytes);
        tc.reps = o.reps;
        tc.warmup = o.warmup;
        tc.nvml = &nvml;
        if (o.timing && rc == 0) {
            // Timing needs the whole GPU: other verifiers of a batch on this GPU wait here.
            const GpuTimingLock gpuLock(GpuTimingLock::pathFromEnvironment());
            if (!gpuLock.error().empty())
                r.log += "timing lock not taken: " + gpuLock.error() + "\n";
            phase = "candidate";
            r.timing = timeLaunch(launch, tc);
            phase = "baseline";
            BaselineInfo b = timeBaseline(p, req.baselineObject, bufs, tc);
            if (o.recordedBaselineUs > 0) {
                b.recordedUs = o.recordedBaselineUs;
                if (b.kind.empty()) {
                    b.kind = "recorded";
                    b.source = o.recordedBaselineSource;
                }
            }
            chooseBaselineTime(b);
            if (!b.kind.empty())
                r.baseline = b;
            r.speedup = speedupOver(b, *r.timing);

            phase = "roofline";
            r.roofline = rooflineFloor(op.minimalBytes(p, inputs), op.flops(p),
                                       copyBandwidthGBs(arena, stream.get()),
                                       peakTflops(r.device.arch, p.dtype), r.timing->medianUs);
        }
        CK(cudaStreamSynchronize(stream.get()));

        // The oracle, on the host.
        phase = "oracle";
        const auto reference = refFuture.get();
        OracleInput oi;
        oi.problem = &p;
        oi.op = &op;
        oi.inputs = &inputs;
        oi.inputsAfter = &after.inputsAfter;
        oi.outputs = &after.outputs;
        oi.reference = &reference;
        oi.canaryBytesChanged = after.canaryDamage;
        oi.thresholds = req.thresholds;
        applyVerdict(r, rc, evaluateOutputs(oi));
    } catch (const cuda::Error& e) {
        // A fault after the candidate ran is the candidate's (illegal address, launch failure);
        // the context is now unusable, so report and stop.
        const bool candidate = phase == "candidate" || phase == "readback";
        r.verdict = candidate ? verdict::kCrashed : verdict::kError;
        r.reasons = {std::string(candidate ? "crashed: " : "error: ") + e.what()};
        r.log += std::string("CUDA error in phase ") + phase + ": " + e.what() + "\n";
        if (refFuture.valid())
            refFuture.wait();
    } catch (const std::exception& e) {
        r.verdict = verdict::kError;
        r.reasons = {std::string("error: ") + e.what()};
        r.log += std::string("error in phase ") + phase + ": " + e.what() + "\n";
        if (refFuture.valid())
            refFuture.wait();
    }
}

}  // namespace reach
