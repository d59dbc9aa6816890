#include "core/verify/problem.h"

#include <fstream>
#include <sstream>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"

namespace reach {

const std::vector<int64_t>& Problem::shape(const std::string& key, int rank) const {
    auto it = shapes.find(key);
    if (it == shapes.end())
        throw InputError(file, "shapes." + key, "a shape for '" + key + "' (operator " + op + ")");
    if (rank >= 0 && int(it->second.size()) != rank)
        throw InputError(file, "shapes." + key,
                         "a shape of rank " + std::to_string(rank) + " for operator " + op);
    return it->second;
}

double Problem::param(const std::string& key, double fallback) const {
    if (!params.contains(key))
        return fallback;
    const auto& v = params.at(key);
    if (!v.is_number())
        throw InputError(file, "params." + key, "a number");
    return v.get<double>();
}

int64_t Problem::intParam(const std::string& key, int64_t fallback) const {
    if (!params.contains(key))
        return fallback;
    const auto& v = params.at(key);
    if (!v.is_number_integer())
        throw InputError(file, "params." + key, "an integer");
    return v.get<int64_t>();
}

nlohmann::json Problem::toJson() const {
    nlohmann::json j;
    j["id"] = id;
    j["op"] = op;
    j["dtype"] = dtypeName(dtype);
    j["shapes"] = nlohmann::json::object();
    for (const auto& [k, v] : shapes)
        j["shapes"][k] = v;
    j["params"] = params;
    j["seed"] = seed;
    return j;
}

Problem Problem::fromJson(const nlohmann::json& j, const std::string& file) {
    if (!j.is_object())
        throw InputError(file, "top level", "a JSON object");
    Problem p;
    p.file = file;
    auto str = [&](const char* key) {
        if (!j.contains(key) || !j.at(key).is_string())
            throw InputError(file, std::string("key '") + key + "'", "a string");
        return j.at(key).get<std::string>();
    };
    p.id = str("id");
    p.op = str("op");
    std::string dt = str("dtype");
    if (!dtypeFromName(dt, &p.dtype) || !isFloating(p.dtype) || p.dtype == DType::F16)
        throw InputError(file, "key 'dtype'", "\"f32\" or \"bf16\" (got \"" + dt + "\")");
    if (!j.contains("shapes") || !j.at("shapes").is_object())
        throw InputError(file, "key 'shapes'", "an object of name -> [dims]");
    for (const auto& [k, v] : j.at("shapes").items()) {
        if (!v.is_array() || v.empty() || v.size() > 8)
            throw InputError(file, "shapes." + k, "an array of 1 to 8 positive integers");
        std::vector<int64_t> dims;
        for (const auto& d : v) {
            if (!d.is_number_integer() || d.get<int64_t>() <= 0)
                throw InputError(file, "shapes." + k, "an array of 1 to 8 positive integers");
            dims.push_back(d.get<int64_t>());
        }
        p.shapes[k] = dims;
    }
    if (j.contains("params")) {
        if (!j.at("params").is_object())
            throw InputError(file, "key 'params'", "an object");
        p.params = j.at("params");
    }
    if (!j.contains("seed") || !j.at("seed").is_number_integer() || j.at("seed").get<int64_t>() < 0)
        throw InputError(file, "key 'seed'", "a non-negative integer");
    p.seed = j.at("seed").get<uint64_t>();
    return p;
}

Problem Problem::load(const std::string& path) {
    return fromJson(parseJson(readJsonFile(path, "a readable problem file"), path, "valid JSON"),
                    path);
}

}  // namespace reach
