#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace reach {

// A JSON number as the integer type T: a JSON integer within T's range, or a float that is a
// whole number within it (100.0 reads as 100); nullopt for anything else. nlohmann's get<T> casts
// a float past T's range, which is undefined behaviour (the fuzzers found 1.5e24 as a repetition
// count in a reach-verify result).
template <typename T>
std::optional<T> jsonInteger(const nlohmann::json& v) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    using L = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(L::max()))
            return std::nullopt;
        return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
        const int64_t i = v.get<int64_t>();
        if constexpr (std::is_signed_v<T>) {
            if (i < static_cast<int64_t>(L::min()) || i > static_cast<int64_t>(L::max()))
                return std::nullopt;
        } else {
            if (i < 0 || static_cast<uint64_t>(i) > static_cast<uint64_t>(L::max()))
                return std::nullopt;
        }
        return static_cast<T>(i);
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        // [-2^digits, 2^digits) for a signed T, [0, 2^digits) for an unsigned one: both bounds
        // are exact doubles, where double(L::max()) may round up past the range.
        const double top = std::ldexp(1.0, L::digits);
        const double bottom = std::is_signed_v<T> ? -top : 0.0;
        if (!(d >= bottom && d < top) || d != std::trunc(d))
            return std::nullopt;
        return static_cast<T>(d);
    }
    return std::nullopt;
}

}  // namespace reach
