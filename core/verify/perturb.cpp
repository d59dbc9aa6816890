#include "core/verify/perturb.h"

#include <cstring>

namespace reach {

namespace {

uint64_t splitmix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

uint64_t perturbHash(uint64_t seed, uint64_t i) {
    return splitmix64(seed ^ splitmix64(i));
}

float perturbFactor(uint64_t seed, uint64_t i) {
    const uint32_t u = uint32_t(perturbHash(seed, i) >> 42);  // 22 bits
    // u * 2^-23 is exact, and 0.75 + it is a float in [0.75, 1.25) (a multiple of 2^-23).
    return 0.75f + float(u) * 0x1p-23f;
}

void perturbHost(HostTensor& t, uint64_t seed) {
    const int64_t n = t.numel();
    switch (t.spec.dtype) {
        case DType::F32: {
            float* p = reinterpret_cast<float*>(t.bytes.data());
            for (int64_t i = 0; i < n; ++i) {
                volatile float y = p[i] * perturbFactor(seed, uint64_t(i));  // one rounding, no FMA
                p[i] = y;
            }
            break;
        }
        case DType::BF16: {
            uint16_t* p = reinterpret_cast<uint16_t*>(t.bytes.data());
            for (int64_t i = 0; i < n; ++i) {
                volatile float y = bf16ToFloat(p[i]) * perturbFactor(seed, uint64_t(i));
                p[i] = floatToBf16(y);
            }
            break;
        }
        default:
            break;  // indices are not values (and no C++ operator draws F16)
    }
}

}  // namespace reach
