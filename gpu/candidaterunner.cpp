// The runner of a C++ candidate (docs/verifier.md, "Trust boundary"): reach-verify started again
// with --runner-channel 3 by the controller (cudarunner.cpp). It maps the controller's input and
// output buffers, and only runs what it is asked to: first Reach's own baseline (the trusted
// phase: cuBLAS or a Reach baseline kernel, timed the way the candidate will be), then the
// candidate's reach_run, loaded with dlopen here and never in the process that writes the
// verdict. Everything it answers once the candidate is loaded is a claim: the controller reads
// the outputs, inputs and canaries in its own memory and keeps its own clock.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verify/channel.h"
#include "core/verify/processguard.h"
#include "gpu/cudahandles.h"
#include "gpu/devicerunner.h"
#include "gpu/sharedregion.h"
#include "gpu/streamflags.h"
#include "reach/candidate.h"

namespace reach {

namespace {

using nlohmann::json;

struct Tensor {
    SharedRegion region;
    reach_tensor view{};
};

reach_tensor viewOf(const SharedRegion& r, const json& spec) {
    reach_tensor t{};
    t.data = r.data();
    t.dtype = spec.value("dtype", 0);
    const json shape = spec.value("shape", json::array());
    t.ndim = int32_t(std::min<size_t>(shape.size(), 8));
    for (int i = 0; i < t.ndim; ++i)
        t.shape[i] = shape[size_t(i)].get<int64_t>();
    return t;
}

class Runner {
public:
    explicit Runner(MessageChannel ch) : m_ch(std::move(ch)) {}

    int serve() {
        while (true) {
            auto [msg, fds] = m_ch.receive(-1, MessageChannel::kMaxFds);
            const std::string op = msg.value("op", "");
            json reply;
            try {
                if (op == "exit")
                    return 0;
                if (op == "hello")
                    reply = hello(msg, fds);
                else if (op == "use")
                    reply = use(msg);
                else if (op == "run")
                    reply = run(msg);
                else
                    reply = {{"op", "error"}, {"error", "unknown op '" + op + "'"}};
            } catch (const std::exception& e) {
                reply = {{"op", "error"}, {"error", e.what()}};
            }
            m_ch.send(reply);
        }
    }

private:
    json hello(const json& msg, const std::vector<int>& fds) {
        cuda::check(cudaSetDevice(0), "cudaSetDevice");
        cuda::check(cudaFree(nullptr), "cudaFree(0)");  // the primary context, before mapping
        m_stream = cuda::nonBlockingStream();
        size_t k = 0;
        for (const char* side : {"inputs", "outputs"}) {
            for (const json& spec : msg.at(side)) {
                if (k >= fds.size())
                    throw std::runtime_error("hello: fewer descriptors than buffers");
                Tensor t;
                t.region = SharedRegion::attach(fds[k++], spec.at("total").get<size_t>(),
                                                spec.at("canary").get<size_t>(),
                                                spec.at("bytes").get<size_t>());
                t.view = viewOf(t.region, spec);
                (side[0] == 'i' ? m_in : m_out).push_back(std::move(t));
            }
        }
        if (msg.contains("flags")) {
            if (k >= fds.size())
                throw std::runtime_error("hello: no descriptor for the flags");
            const json& f = msg.at("flags");
            m_flagsRegion =
                SharedRegion::attach(fds[k++], f.at("total").get<size_t>(),
                                     f.at("canary").get<size_t>(), f.at("bytes").get<size_t>());
            m_flags.emplace(m_flagsRegion.data());
        }
        for (const Tensor& t : m_in)
            m_vin.push_back(t.view);
        for (const Tensor& t : m_out)
            m_vout.push_back(t.view);
        return {{"op", "ready"}, {"pid", int(::getpid())}};
    }

    json use(const json& msg) {
        const std::string which = msg.value("which", "");
        if (which == "cublas") {
            // Row-major C = A B is column-major C^T = B^T A^T (the baseline of matmul).
            const int64_t M = msg.at("m"), N = msg.at("n"), K = msg.at("k");
            const cudaDataType dt = msg.value("dtype", "f32") == "bf16" ? CUDA_R_16BF : CUDA_R_32F;
            m_cublas = cuda::cublasOn(m_stream.get());
            m_fn = [this, M, N, K, dt] {
                const float alpha = 1, beta = 0;
                return int(cublasGemmEx(m_cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M),
                                        int(K), &alpha, m_vin[1].data, dt, int(N), m_vin[0].data,
                                        dt, int(K), &beta, m_vout[0].data, dt, int(N),
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            };
            return {{"op", "using"}, {"ok", true}};
        }
        // A shared object: Reach's baseline kernel (trusted phase) or, last, the candidate.
        const std::string path = msg.value("path", "");
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char* e = dlerror();
            return {
                {"op", "using"}, {"ok", false}, {"error", std::string("dlopen: ") + (e ? e : "?")}};
        }
        auto fn = reinterpret_cast<reach_run_fn>(dlsym(h, "reach_run"));
        if (!fn)
            return {{"op", "using"},
                    {"ok", false},
                    {"error", "the shared object does not export extern \"C\" reach_run"}};
        // dlclose is left to process exit: a candidate's static destructors must not run while
        // its kernels may still be queued.
        m_fn = [this, fn] {
            return fn(m_vin.data(), int(m_vin.size()), m_vout.data(), int(m_vout.size()),
                      m_stream.get());
        };
        return {{"op", "using"}, {"ok", true}};
    }

    json run(const json& msg) {
        json reply = {{"op", "ran"}, {"id", msg.value("id", json())}};
        if (!m_fn)
            throw std::runtime_error("run before use");
        // A timed call (cudarunner.cpp): behind the controller's `go`, `done` written after it, so
        // the controller's own events bracket it with no host in between.
        std::optional<uint32_t> token;
        if (msg.contains("token") && m_flags)
            token = msg.at("token").get<uint32_t>();
        if (token)
            m_flags->wait(m_stream.get(), StreamFlags::kGo, *token);
        cuda::Event start = cuda::event(), end = cuda::event();
        cudaEventRecord(start.get(), m_stream.get());
        const int rc = m_fn();
        cudaEventRecord(end.get(), m_stream.get());
        if (token)
            m_flags->write(m_stream.get(), StreamFlags::kDone, *token);
        // Every stream done: work left on a stream of the candidate's own is judged on its values,
        // and its time shows on the controller's clock (the events on this stream miss it).
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaGetLastError();
        reply["rc"] = rc;
        if (e != cudaSuccess) {
            reply["cuda_error"] =
                std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
            return reply;
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, start.get(), end.get());
        reply["e_us"] = double(ms) * 1000.0;
        return reply;
    }

    MessageChannel m_ch;
    cuda::Stream m_stream;
    cuda::Cublas m_cublas;
    std::vector<Tensor> m_in, m_out;
    std::vector<reach_tensor> m_vin, m_vout;
    std::function<int()> m_fn;
    SharedRegion m_flagsRegion;
    std::optional<StreamFlags> m_flags;
};

}  // namespace

int runCandidateRunner(int channelFd) {
    for (const std::string& n : dropPrivilegesForCandidate())
        std::cerr << "runner: " << n << "\n";
    try {
        return Runner(MessageChannel(channelFd)).serve();
    } catch (const ChannelError&) {
        return 0;  // the controller is gone: so is the job
    } catch (const std::exception& e) {
        std::cerr << "runner: " << e.what() << "\n";
        return 3;
    }
}

}  // namespace reach
