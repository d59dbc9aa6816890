#include "core/base/callsignature.h"

#include <nlohmann/json.hpp>

#include <array>

namespace reach {

namespace {

constexpr std::array<ProfilerDtype, 20> kDtypes = {{
    {"float", "float32", 4},
    {"double", "float64", 8},
    {"c10::Half", "float16", 2},
    {"c10::BFloat16", "bfloat16", 2},
    {"long int", "int64", 8},
    {"long", "int64", 8},
    {"int", "int32", 4},
    {"short int", "int16", 2},
    {"signed char", "int8", 1},
    {"unsigned char", "uint8", 1},
    {"bool", "bool", 1},
    {"c10::Float8_e4m3fn", "float8_e4m3fn", 1},
    {"c10::Float8_e5m2", "float8_e5m2", 1},
    {"c10::Float8_e4m3fnuz", "float8_e4m3fnuz", 1},
    {"c10::Float8_e5m2fnuz", "float8_e5m2fnuz", 1},
    {"c10::Float8_e8m0fnu", "float8_e8m0fnu", 1},
    {"c10::complex<float>", "complex64", 8},
    {"c10::complex<double>", "complex128", 16},
    {"unsigned int", "uint32", 4},
    {"unsigned long", "uint64", 8},
}};

// The entry i of an array; nullptr when `a` is no array or too short.
const nlohmann::json* at(const nlohmann::json& a, size_t i) {
    return a.is_array() && i < a.size() ? &a[i] : nullptr;
}

std::string text(const nlohmann::json& a, size_t i) {
    const nlohmann::json* s = at(a, i);
    return s && s->is_string() ? s->get<std::string>() : std::string();
}

// An array of integers; nullopt for anything else.
std::optional<std::vector<int64_t>> integers(const nlohmann::json& j) {
    if (!j.is_array())
        return std::nullopt;
    std::vector<int64_t> out;
    out.reserve(j.size());
    for (const auto& x : j) {
        if (!x.is_number_integer())
            return std::nullopt;
        out.push_back(x.get<int64_t>());
    }
    return out;
}

// A recorded stride: integers, else none (a stride in part is no stride).
std::vector<int64_t> stride(const nlohmann::json* j) {
    return j ? integers(*j).value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
}

}  // namespace

std::span<const ProfilerDtype> profilerDtypes() {
    return kDtypes;
}

const ProfilerDtype* profilerDtype(std::string_view profilerType) {
    for (const ProfilerDtype& d : kDtypes)
        if (d.profilerType == profilerType)
            return &d;
    return nullptr;
}

std::optional<std::vector<CallArg>> readCallArguments(const nlohmann::json& signature,
                                                      std::vector<UnreadableDims>& unreadable) {
    unreadable.clear();
    if (!signature.is_object())
        return std::nullopt;
    static const nlohmann::json kAbsent;
    auto field = [&](const char* key) -> const nlohmann::json& {
        const auto it = signature.find(key);
        return it == signature.end() ? kAbsent : *it;
    };
    const nlohmann::json& dims = field("dims");
    if (!dims.is_array())
        return std::nullopt;
    const nlohmann::json& types = field("types");
    const nlohmann::json& concrete = field("concrete");
    const nlohmann::json& strides = field("strides");
    std::vector<CallArg> out(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        CallArg& a = out[i];
        a.type = text(types, i);
        a.concrete = text(concrete, i);
        const nlohmann::json& d = dims[i];
        const nlohmann::json* s = at(strides, i);
        bool read = d.is_array();
        if (read && !d.empty() && d[0].is_array()) {
            a.isList = true;  // a list of shapes, as its first entry says
            for (size_t k = 0; k < d.size(); ++k) {
                auto shape = integers(d[k]);
                if (!shape) {
                    read = false;
                    break;
                }
                a.list.push_back(std::move(*shape));
                a.listStrides.push_back(stride(s ? at(*s, k) : nullptr));
            }
        } else if (read) {
            for (const auto& x : d) {
                if (!x.is_number_integer()) {
                    read = false;
                    break;
                }
                a.dims.push_back(x.get<int64_t>());
            }
            a.strides = stride(s);
        }
        if (!read)
            unreadable.push_back({i, d.is_array() ? d.size() : 0});
    }
    return out;
}

std::optional<std::vector<CallArg>> parseCallSignature(const nlohmann::json& signature,
                                                       std::string* why) {
    std::vector<UnreadableDims> unreadable;
    auto args = readCallArguments(signature, unreadable);
    if (!args || !unreadable.empty()) {
        if (why)
            *why = !args ? std::string("no recorded shapes")
                         : "argument " + std::to_string(unreadable.front().argument) +
                               ": a shape Reach cannot read";
        return std::nullopt;
    }
    return args;
}

std::optional<std::vector<CallArg>> parseCallSignature(const std::string& signature) {
    return parseCallSignature(nlohmann::json::parse(signature, nullptr, false), nullptr);
}

}  // namespace reach
