#include "core/verify/dtype.h"

namespace reach {

std::string dtypeName(DType d) {
    switch (d) {
        case DType::F32:
            return "f32";
        case DType::BF16:
            return "bf16";
        case DType::F16:
            return "f16";
        case DType::I32:
            return "i32";
        case DType::I64:
            return "i64";
    }
    return "?";
}

bool dtypeFromName(const std::string& name, DType* out) {
    for (DType d : {DType::F32, DType::BF16, DType::F16, DType::I32, DType::I64}) {
        if (dtypeName(d) == name) {
            *out = d;
            return true;
        }
    }
    return false;
}

size_t dtypeSize(DType d) {
    switch (d) {
        case DType::F32:
            return 4;
        case DType::BF16:
            return 2;
        case DType::F16:
            return 2;
        case DType::I32:
            return 4;
        case DType::I64:
            return 8;
    }
    return 0;
}

}  // namespace reach
