#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verify/dtype.h"

namespace reach {

// A verification problem (one JSON file):
//   {"id": "softmax_4096x8192_bf16", "op": "softmax", "dtype": "bf16",
//    "shapes": {"x": [4096, 8192]}, "params": {"scale": 1.0}, "seed": 42}
// This is the file as data; parseProblem/loadProblem (core/verify/operators.h) also ask the
// operator whether the shapes and params it needs are there. Unknown dtypes or malformed shapes
// are InputErrors naming the file and the key.
struct Problem {
    std::string id;
    std::string op;
    DType dtype = DType::F32;
    std::map<std::string, std::vector<int64_t>> shapes;
    nlohmann::json params = nlohmann::json::object();
    uint64_t seed = 0;
    std::string file;  // where it was read from, for error messages

    // The shape under `key`; throws InputError when it is missing or has another rank.
    const std::vector<int64_t>& shape(const std::string& key, int rank = -1) const;
    double param(const std::string& key, double fallback) const;
    int64_t intParam(const std::string& key, int64_t fallback) const;
    // Scale applied to every floating input (KernelBench-Verified varies x1, x100, x0.01, -1).
    double inputScale() const { return param("scale", 1.0); }

    nlohmann::json toJson() const;
    static Problem fromJson(const nlohmann::json& j, const std::string& file);
    static Problem load(const std::string& path);  // the file's JSON through fromJson
};

}  // namespace reach
