#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/verify/dtype.h"

namespace reach {

// Name, dtype and shape of one operator argument (contiguous, row-major).
struct TensorSpec {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape)
            n *= d;
        return n;
    }
    size_t bytes() const { return size_t(numel()) * dtypeSize(dtype); }
};

// A tensor in host memory, bytes exactly as the device holds them.
struct HostTensor {
    TensorSpec spec;
    std::vector<uint8_t> bytes;

    HostTensor() = default;
    explicit HostTensor(TensorSpec s) : spec(std::move(s)), bytes(spec.bytes()) {}
    int64_t numel() const { return spec.numel(); }

    // Element i as a double (floating dtypes and integers alike).
    double at(int64_t i) const;
    void set(int64_t i, double v);   // rounds to the dtype
    int64_t index(int64_t i) const;  // integer dtypes
    // All elements widened to double.
    std::vector<double> toDoubles() const;
};

}  // namespace reach
