#include "core/verify/hosttensor.h"

#include <cstring>

#include "core/base/parallel.h"

namespace reach {

double HostTensor::at(int64_t i) const {
    const uint8_t* p = bytes.data() + size_t(i) * dtypeSize(spec.dtype);
    switch (spec.dtype) {
        case DType::F32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case DType::BF16: {
            uint16_t b;
            std::memcpy(&b, p, 2);
            return bf16ToFloat(b);
        }
        case DType::I32: {
            int32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case DType::I64: {
            int64_t v;
            std::memcpy(&v, p, 8);
            return double(v);
        }
        case DType::F16:
            break;  // not produced by any operator
    }
    return 0;
}

int64_t HostTensor::index(int64_t i) const {
    const uint8_t* p = bytes.data() + size_t(i) * dtypeSize(spec.dtype);
    if (spec.dtype == DType::I64) {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

void HostTensor::set(int64_t i, double v) {
    uint8_t* p = bytes.data() + size_t(i) * dtypeSize(spec.dtype);
    switch (spec.dtype) {
        case DType::F32: {
            float f = float(v);
            std::memcpy(p, &f, 4);
            break;
        }
        case DType::BF16: {
            uint16_t b = floatToBf16(float(v));
            std::memcpy(p, &b, 2);
            break;
        }
        case DType::I32: {
            int32_t x = int32_t(v);
            std::memcpy(p, &x, 4);
            break;
        }
        case DType::I64: {
            int64_t x = int64_t(v);
            std::memcpy(p, &x, 8);
            break;
        }
        case DType::F16:
            break;
    }
}

std::vector<double> HostTensor::toDoubles() const {
    std::vector<double> out(static_cast<size_t>(numel()));
    parallelFor(numel(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
            out[size_t(i)] = at(i);
    });
    return out;
}

}  // namespace reach
