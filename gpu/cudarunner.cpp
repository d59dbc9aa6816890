// The CUDA half of a verification job. Only this file (and its helpers in gpu/) sees CUDA.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <stdexcept>

#include "core/verify/oracle.h"
#include "gpu/devicerunner.h"
#include "gpu/nvmlclocks.h"
#include "reach/candidate.h"

namespace reach {

namespace {

struct CudaError : std::runtime_error {
    cudaError_t code;
    CudaError(cudaError_t c, const std::string& m) : std::runtime_error(m), code(c) {}
};

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw CudaError(
            e, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
#define CK(x) check((x), #x)

// One tensor with a canary region before and after it (out-of-bounds writes land there).
struct DevTensor {
    uint8_t* base = nullptr;
    uint8_t* data = nullptr;
    size_t bytes = 0;
    size_t total = 0;
};

DevTensor allocTensor(size_t bytes) {
    DevTensor t;
    t.bytes = bytes;
    size_t padded = (bytes + 255) / 256 * 256;
    t.total = 2 * kCanaryBytes + padded;
    void* p = nullptr;
    CK(cudaMalloc(&p, t.total));
    t.base = static_cast<uint8_t*>(p);
    t.data = t.base + kCanaryBytes;
    CK(cudaMemset(t.base, kCanaryByte, t.total));
    return t;
}

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
        DevTensor t = allocTensor(bytes);
        ptrs.push_back(t.base);
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

// Cold-L2 timing: before every repetition, outside the timed window, write a buffer of at
// least twice the L2 size; each repetition has its own event pair; median of `reps`.
TimingStats timeLaunch(const Launch& launch, cudaStream_t stream, int reps, int warmup, void* flush,
                       size_t flushBytes, const NvmlClocks& nvml) {
    for (int i = 0; i < warmup; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xff, flushBytes, stream));
        if (int rc = launch())
            throw std::runtime_error("launch returned " + std::to_string(rc));
    }
    CK(cudaStreamSynchronize(stream));
    int clockBefore = nvml.smClockMhz();
    std::vector<cudaEvent_t> start(static_cast<size_t>(reps)), stop(static_cast<size_t>(reps));
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventCreate(&start[size_t(i)]));
        CK(cudaEventCreate(&stop[size_t(i)]));
    }
    for (int i = 0; i < reps; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xff, flushBytes, stream));
        CK(cudaEventRecord(start[size_t(i)], stream));
        if (int rc = launch())
            throw std::runtime_error("launch returned " + std::to_string(rc));
        CK(cudaEventRecord(stop[size_t(i)], stream));
    }
    CK(cudaStreamSynchronize(stream));
    int clockAfter = nvml.smClockMhz();
    std::vector<double> us;
    for (int i = 0; i < reps; ++i) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, start[size_t(i)], stop[size_t(i)]));
        us.push_back(double(ms) * 1000.0);
        cudaEventDestroy(start[size_t(i)]);
        cudaEventDestroy(stop[size_t(i)]);
    }
    TimingStats t = TimingStats::fromSamples(us);
    t.warmup = warmup;
    t.l2Flushed = true;
    t.l2FlushBytes = double(flushBytes);
    t.smClockBeforeMhz = clockBefore;
    t.smClockAfterMhz = clockAfter;
    t.clockSource = nvml.available() ? "nvml" : "none";
    return t;
}

// Device-to-device copy bandwidth (bytes read + written per second, GB/s): the memory ceiling
// of the roofline, measured rather than taken from a datasheet.
double copyBandwidthGBs(Arena& a, cudaStream_t stream) {
    const size_t bytes = size_t(512) << 20;
    void* src = a.raw(bytes);
    void* dst = a.raw(bytes);
    CK(cudaMemsetAsync(src, 1, bytes, stream));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> ms;
    for (int i = 0; i < 12; ++i) {
        CK(cudaEventRecord(e0, stream));
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float m = 0;
        CK(cudaEventElapsedTime(&m, e0, e1));
        if (i >= 2)
            ms.push_back(m);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2];
    return 2.0 * double(bytes) / (med * 1e-3) / 1e9;
}

// Dense peak for the dtype (TFLOP/s), from vendor datasheets: the arithmetic ceiling of the
// roofline. Deliberately the tensor-core peak (TF32 for f32), so the floor stays a lower bound.
double peakTflops(const std::string& arch, DType d) {
    bool bf = d == DType::BF16;
    if (arch == "sm_90")
        return bf ? 989.4 : 494.7;
    if (arch == "sm_80")
        return bf ? 312.0 : 156.0;
    if (arch == "sm_89")
        return bf ? 362.0 : 181.0;
    if (arch == "sm_100")
        return bf ? 2250.0 : 1100.0;
    return 0;
}

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

}  // namespace

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
    auto outSpecs = op.outputSpecs(p);
    NvmlClocks nvml;
    Arena arena;
    cudaStream_t stream = nullptr;
    std::string phase = "setup";
    try {
        CK(cudaSetDevice(0));
        CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        std::vector<DevTensor> din, dout;
        std::vector<reach_tensor> vin, vout;
        for (const auto& t : inputs) {
            din.push_back(arena.tensor(t.bytes.size()));
            CK(cudaMemcpy(din.back().data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice));
            vin.push_back(view(din.back(), t.spec));
        }
        for (const auto& s : outSpecs) {
            dout.push_back(arena.tensor(s.bytes()));
            CK(cudaMemset(dout.back().data, kSentinelByte, s.bytes()));
            vout.push_back(view(dout.back(), s));
        }
        CK(cudaDeviceSynchronize());

        // The correctness run.
        phase = "candidate";
        Launch launch = [&] {
            return cand.fn(vin.data(), int(vin.size()), vout.data(), int(vout.size()), stream);
        };
        int rc = launch();
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(stream));
        phase = "readback";
        std::vector<HostTensor> outs, inputsAfter;
        int64_t damage = 0;
        for (size_t k = 0; k < outSpecs.size(); ++k) {
            HostTensor h(outSpecs[k]);
            CK(cudaMemcpy(h.bytes.data(), dout[k].data, h.bytes.size(), cudaMemcpyDeviceToHost));
            outs.push_back(std::move(h));
            damage += canaryDamage(dout[k]);
        }
        for (size_t k = 0; k < inputs.size(); ++k) {
            HostTensor h(inputs[k].spec);
            CK(cudaMemcpy(h.bytes.data(), din[k].data, h.bytes.size(), cudaMemcpyDeviceToHost));
            inputsAfter.push_back(std::move(h));
            damage += canaryDamage(din[k]);
        }

        // Timing (also for failing candidates: the user sees what a cheat would have scored).
        size_t flushBytes = std::max<size_t>(size_t(2 * r.device.l2Bytes), size_t(64) << 20);
        void* flush = arena.raw(flushBytes);
        if (o.timing && rc == 0) {
            phase = "candidate";
            r.timing = timeLaunch(launch, stream, o.reps, o.warmup, flush, flushBytes, nvml);
            phase = "baseline";
            BaselineInfo b;
            try {
                if (p.op == "matmul") {
                    b.kind = "cublas";
                    b.source = "cublasGemmEx (CUBLAS_COMPUTE_32F, default algorithm)";
                    cublasHandle_t h = nullptr;
                    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
                        throw std::runtime_error("cublasCreate failed");
                    cublasSetStream(h, stream);
                    int64_t M = p.shape("a")[0], K = p.shape("a")[1], N = p.shape("b")[1];
                    cudaDataType dt = p.dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
                    float alpha = 1, beta = 0;
                    // Row-major C = A B is column-major C^T = B^T A^T.
                    Launch gemm = [&] {
                        return int(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K),
                                                &alpha, din[1].data, dt, int(N), din[0].data, dt,
                                                int(K), &beta, dout[0].data, dt, int(N),
                                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                    };
                    b.timing = timeLaunch(gemm, stream, o.reps, o.warmup, flush, flushBytes, nvml);
                    cublasDestroy(h);
                } else if (!req.baselineObject.empty()) {
                    Loaded base = loadObject(req.baselineObject);
                    if (!base.fn)
                        throw std::runtime_error(base.error);
                    b.kind = "reach_kernel";
                    b.source = "resources/baselines/" + p.op + ".cu";
                    Launch bl = [&] {
                        return base.fn(vin.data(), int(vin.size()), vout.data(), int(vout.size()),
                                       stream);
                    };
                    b.timing = timeLaunch(bl, stream, o.reps, o.warmup, flush, flushBytes, nvml);
                }
            } catch (const std::exception& e) {
                b.note = std::string("baseline could not be timed: ") + e.what();
                CK(cudaGetLastError());
            }
            if (o.recordedBaselineUs > 0) {
                b.recordedUs = o.recordedBaselineUs;
                if (b.kind.empty()) {
                    b.kind = "recorded";
                    b.source = o.recordedBaselineSource;
                }
            }
            double measured = b.timing ? b.timing->medianUs : 0;
            // As the study did: the faster of the measured and the recorded baseline.
            if (measured > 0 && (b.recordedUs <= 0 || measured <= b.recordedUs)) {
                b.usedUs = measured;
            } else if (b.recordedUs > 0) {
                b.usedUs = b.recordedUs;
                b.note += (b.note.empty() ? "" : "; ") + std::string("recorded time is faster");
            }
            if (!b.kind.empty())
                r.baseline = b;
            if (b.usedUs > 0 && r.timing->medianUs > 0)
                r.speedup = b.usedUs / r.timing->medianUs;

            phase = "roofline";
            Roofline rf;
            rf.minimalBytes = op.minimalBytes(p, inputs);
            rf.flops = op.flops(p);
            rf.copyBandwidthGBs = copyBandwidthGBs(arena, stream);
            rf.peakTflops = peakTflops(r.device.arch, p.dtype);
            double memUs = rf.minimalBytes / (rf.copyBandwidthGBs * 1e9) * 1e6;
            double cmpUs = rf.peakTflops > 0 ? rf.flops / (rf.peakTflops * 1e12) * 1e6 : 0;
            rf.floorUs = std::max(memUs, cmpUs);
            rf.belowFloor = r.timing->medianUs < 0.9 * rf.floorUs;
            r.roofline = rf;
        }
        CK(cudaStreamSynchronize(stream));
        cudaStreamDestroy(stream);
        stream = nullptr;

        // The oracle, on the host.
        phase = "oracle";
        auto reference = refFuture.get();
        OracleInput oi;
        oi.problem = &p;
        oi.op = &op;
        oi.inputs = &inputs;
        oi.inputsAfter = &inputsAfter;
        oi.outputs = &outs;
        oi.reference = &reference;
        oi.canaryBytesChanged = damage;
        oi.thresholds = req.thresholds;
        OracleVerdict ov = evaluateOutputs(oi);
        r.hasMetrics = true;
        r.metrics = ov.metrics;
        r.checks.push_back(
            {"return_code", double(rc), 0, rc == 0, "reach_run returned " + std::to_string(rc)});
        if (rc != 0)
            r.reasons.push_back("return_code: reach_run returned " + std::to_string(rc));
        for (auto& c : ov.checks)
            r.checks.push_back(c);
        for (auto& s : ov.reasons)
            r.reasons.push_back(s);
        if (r.roofline) {
            bool ok = !r.roofline->belowFloor;
            std::string d = "median " + std::to_string(r.timing->medianUs) + " us vs floor " +
                            std::to_string(r.roofline->floorUs) + " us";
            r.checks.push_back(
                {"roofline_plausible", r.timing->medianUs, 0.9 * r.roofline->floorUs, ok, d});
            if (!ok)
                r.reasons.push_back("roofline_plausible: faster than physically possible, " + d);
        }
        r.verdict = r.reasons.empty() ? verdict::kPass : verdict::kFail;
    } catch (const CudaError& e) {
        // A fault after the candidate ran is the candidate's (illegal address, launch failure);
        // the context is now unusable, so report and stop.
        bool candidate = phase == "candidate" || phase == "readback";
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
