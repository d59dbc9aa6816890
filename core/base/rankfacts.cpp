#include "core/base/rankfacts.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace reach {

std::string collectiveOp(std::string_view n) {
    for (std::string_view prefix :
         {"ncclDevKernel_", "ncclKernel_", "rcclDevKernel_", "rcclKernel_"}) {
        if (n.substr(0, prefix.size()) == prefix) {
            n.remove_prefix(prefix.size());
            size_t end = 0;
            while (end < n.size() && std::isalnum(static_cast<unsigned char>(n[end])))
                ++end;
            return end ? std::string(n.substr(0, end)) : std::string("Collective");
        }
    }
    return {};
}

int64_t collectiveBytes(int64_t elements, std::string_view dtype) {
    static const std::unordered_map<std::string_view, int64_t> sizes = {
        {"Float", 4},        {"Double", 8},        {"Half", 2},          {"BFloat16", 2},
        {"Long", 8},         {"Int", 4},           {"Short", 2},         {"Char", 1},
        {"Byte", 1},         {"Bool", 1},          {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
        {"ComplexFloat", 8}, {"ComplexDouble", 16}};
    const auto it = sizes.find(dtype);
    if (it == sizes.end() || elements < 0 || elements >= (int64_t(1) << 58))
        return -1;
    return elements * it->second;
}

std::vector<Span> spanUnion(std::vector<Span> spans) {
    std::sort(spans.begin(), spans.end());
    std::vector<Span> out;
    for (const Span& s : spans) {
        if (!out.empty() && s.first <= out.back().second)
            out.back().second = std::max(out.back().second, s.second);
        else
            out.push_back(s);
    }
    return out;
}

std::vector<Span> spanIntersection(const std::vector<Span>& a, const std::vector<Span>& b) {
    std::vector<Span> out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const double lo = std::max(a[i].first, b[j].first);
        const double hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
            out.push_back({lo, hi});
        (a[i].second < b[j].second) ? ++i : ++j;
    }
    return out;
}

double spanLength(const std::vector<Span>& spans) {
    double total = 0;
    for (const auto& [lo, hi] : spans)
        total += hi - lo;
    return total;
}

}  // namespace reach
