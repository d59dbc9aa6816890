#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace reach {

// Codes match reach/candidate.h (the candidate ABI).
enum class DType : int32_t { F32 = 0, BF16 = 1, F16 = 2, I32 = 3, I64 = 4 };

std::string dtypeName(DType d);
// Returns false for an unknown name.
bool dtypeFromName(const std::string& name, DType* out);
size_t dtypeSize(DType d);
inline bool isFloating(DType d) {
    return d == DType::F32 || d == DType::BF16 || d == DType::F16;
}

inline float bf16ToFloat(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Round to nearest even, as __float2bfloat16 does; NaN stays a quiet NaN.
inline uint16_t floatToBf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))
        return uint16_t((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

inline float roundToBf16(float f) {
    return bf16ToFloat(floatToBf16(f));
}

}  // namespace reach
