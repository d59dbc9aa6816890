#pragma once

// Owners of CUDA runtime and cuBLAS handles: every error path of a verification job (a CUDA
// error thrown mid-run, a failing baseline) releases what it created. Only gpu/ sees CUDA.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace reach::cuda {

struct Error : std::runtime_error {
    cudaError_t code;
    Error(cudaError_t c, const std::string& m) : std::runtime_error(m), code(c) {}
};

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw Error(
            e, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// A move-only handle with its release function.
template <typename T, void (*Release)(T)>
class Owned {
public:
    Owned() = default;
    explicit Owned(T h) : m_h(h) {}
    Owned(Owned&& o) noexcept : m_h(std::exchange(o.m_h, T{})) {}
    Owned& operator=(Owned&& o) noexcept {
        if (this != &o) {
            reset();
            m_h = std::exchange(o.m_h, T{});
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { reset(); }
    T get() const { return m_h; }
    void reset() {
        if (m_h)
            Release(std::exchange(m_h, T{}));
    }

private:
    T m_h{};
};

inline void destroyStream(cudaStream_t s) {
    cudaStreamDestroy(s);
}
inline void destroyEvent(cudaEvent_t e) {
    cudaEventDestroy(e);
}
inline void destroyCublas(cublasHandle_t h) {
    cublasDestroy(h);
}

using Stream = Owned<cudaStream_t, destroyStream>;
using Event = Owned<cudaEvent_t, destroyEvent>;
using Cublas = Owned<cublasHandle_t, destroyCublas>;

inline Stream nonBlockingStream() {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return Stream(s);
}

inline Event event() {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    return Event(e);
}

inline Cublas cublasOn(cudaStream_t stream) {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error("cublasCreate failed");
    Cublas owned(h);
    if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error("cublasSetStream failed");
    return owned;
}

}  // namespace reach::cuda
