#include "core/headroom/headroomjson.h"

#include <cmath>

#include "core/base/inputerror.h"

namespace reach {

namespace {

double us3(double v) {
    return std::round(v * 1000.0) / 1000.0;
}
double share6(double v) {
    return std::round(v * 1e6) / 1e6;
}
// Large magnitudes (bytes, FLOPs, rates) to 6 significant digits.
double sig6(double v) {
    if (v == 0 || !std::isfinite(v))
        return v;
    const double scale = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(v))));
    return std::round(v * scale) / scale;
}

nlohmann::json totalsJson(const HeadroomTotals& t, const Headroom& h) {
    const double g = h.gpuTimeUs > 0 ? h.gpuTimeUs : 1;
    return {{"us", us3(t.us)},
            {"estimated_us", us3(t.estimatedUs)},
            {"sol_us", us3(t.solUs)},
            {"headroom_us", us3(t.headroomUs)},
            {"share_of_gpu_time", share6(t.us / g)},
            {"headroom_share_of_gpu_time", share6(t.headroomUs / g)},
            {"fraction_of_sol", share6(t.estimatedUs > 0 ? t.solUs / t.estimatedUs : 0)}};
}

nlohmann::json optionalShare(std::optional<double> v) {
    return v ? nlohmann::json(share6(*v)) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json gpuToJson(const GpuSpec& g) {
    return {{"name", g.name},
            {"dram_gbs", g.dramGBs},
            {"fp32_tflops", g.fp32Tflops},
            {"tf32_tflops", g.tf32Tflops},
            {"bf16_tflops", g.bf16Tflops},
            {"fp8_tflops", g.fp8Tflops},
            {"source", g.source}};
}

GpuSpec gpuFromDeviceInfo(const nlohmann::json& device, const std::string& file) {
    if (!device.is_object())
        throw InputError(file, "top level", "the JSON object reach-verify --device-info prints");
    if (!device.value("available", false)) {
        const auto reason = device.find("reason");
        throw InputError(
            file, "\"available\"",
            "a GPU (the verifier saw none" +
                (reason != device.end() && reason->is_string() ? ": " + reason->get<std::string>()
                                                               : std::string()) +
                ")");
    }
    const auto name = device.find("name");
    if (name == device.end() || !name->is_string())
        throw InputError(file, "\"name\"", "the device's name");
    const auto bw = device.find("copy_bandwidth_gbs");
    if (bw == device.end() || !bw->is_number() || !(bw->get<double>() > 0))
        throw InputError(file, "\"copy_bandwidth_gbs\"",
                         "a measured copy bandwidth in GB/s (run reach-verify --device-info "
                         "--bandwidth)");
    std::optional<GpuSpec> g = measuredGpu(name->get<std::string>(), bw->get<double>());
    if (!g)
        throw InputError(file, "\"name\": " + name->get<std::string>(),
                         "a GPU with a row in the table (docs/headroom.md), or pass --gpu NAME");
    return *g;
}

nlohmann::json headroomToJson(const Headroom& h, size_t maxKernels) {
    nlohmann::json j;
    j["name"] = h.workload;
    j["device"] = h.device;
    j["gpu"] = gpuToJson(h.gpu);
    j["has_shapes"] = h.hasShapes;
    j["gpu_time_us"] = us3(h.gpuTimeUs);
    j["coverage"] = share6(h.coverage());
    j["total"] = totalsJson(h.total, h);
    j["headroom_share_of_gpu_time"] = share6(h.headroomShare());
    j["headroom_share_of_wall_clock"] = optionalShare(h.wallShare(h.headroomShare()));
    // Nothing estimated: no bound (null), not a bound of 1.
    j["sol_bound_speedup"] =
        h.total.estimatedUs > 0 ? nlohmann::json(sig6(h.boundSpeedup())) : nlohmann::json(nullptr);
    nlohmann::json cats = nlohmann::json::object();
    for (Category c : kCategories) {
        nlohmann::json t = totalsJson(h.categories[static_cast<size_t>(c)], h);
        t["headroom_share_of_wall_clock"] = optionalShare(h.wallShare(h.categoryHeadroomShare(c)));
        t["sol_bound_speedup"] = sig6(h.categoryBoundSpeedup(c));
        cats[std::string(categoryKey(c))] = std::move(t);
    }
    j["categories"] = std::move(cats);
    nlohmann::json fams = nlohmann::json::object();
    for (const auto& [name, t] : h.families)
        fams[name] = totalsJson(t, h);
    j["families"] = std::move(fams);
    nlohmann::json ks = nlohmann::json::array();
    for (size_t i = 0; i < h.kernels.size() && i < maxKernels; ++i) {
        const KernelRoofline& k = h.kernels[i];
        ks.push_back(
            {{"name", k.name},
             {"category", categoryKey(k.category)},
             {"family", k.family},
             {"operator", k.op},
             {"calls", k.calls},
             {"us", us3(k.us)},
             {"estimated_us", us3(k.estimatedUs)},
             {"sol_us", us3(k.solUs)},
             {"headroom_us", us3(k.headroomUs())},
             {"fraction_of_sol", share6(k.fractionOfSol())},
             {"bytes", sig6(k.bytes)},
             {"flops", sig6(k.flops)},
             {"achieved_gbs", sig6(k.achievedBytesPerSecond() / 1e9)},
             {"achieved_tflops", sig6(k.achievedFlopsPerSecond() / 1e12)},
             {"intensity_flop_per_byte", sig6(k.intensity())},
             {"bound", k.estimatedUs > 0 ? (k.memoryBound() ? "memory" : "compute") : ""}});
    }
    j["kernels"] = std::move(ks);
    j["kernel_count"] = h.kernels.size();
    nlohmann::json miss = nlohmann::json::array();
    for (const NoEstimate& m : h.noEstimate) {
        miss.push_back({{"reason", m.reason},
                        {"operator", m.op},
                        {"us", us3(m.us)},
                        {"share_of_gpu_time", share6(h.gpuTimeUs > 0 ? m.us / h.gpuTimeUs : 0)}});
    }
    j["no_estimate"] = std::move(miss);
    return j;
}

}  // namespace reach
