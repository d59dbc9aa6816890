#include "core/headroom/gpus.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace reach {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Sparsity figures of the datasheets halved to dense. Order matters: the more specific match
// (PCIe, 80GB) comes before the general one.
std::vector<GpuSpec> buildTable() {
    return {
        {"H100 PCIe 80GB",
         {"h100 pcie"},
         2000,
         51,
         378,
         756,
         1513,
         "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column)"},
        {"H100 SXM 80GB",
         {"h100 80gb hbm3", "h100 sxm", "h100-sxm"},
         3350,
         67,
         494.7,
         989.4,
         1978.9,
         "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column)"},
        {"H200 SXM 141GB",
         {"h200"},
         4800,
         67,
         494.7,
         989.4,
         1978.9,
         "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column)"},
        {"A100 PCIe 80GB",
         {"a100 80gb pcie", "a100-pcie-80gb"},
         1935,
         19.5,
         156,
         312,
         312,
         "NVIDIA A100 Tensor Core GPU datasheet (80GB PCIe column; no FP8: the BF16 rate)"},
        {"A100 SXM 80GB",
         {"a100-sxm4-80gb", "a100-sxm-80gb", "a100 80gb"},
         2039,
         19.5,
         156,
         312,
         312,
         "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM column; no FP8: the BF16 rate)"},
        {"A100 40GB",
         {"a100-sxm4-40gb", "a100-pcie-40gb", "a100 40gb", "a100"},
         1555,
         19.5,
         156,
         312,
         312,
         "NVIDIA A100 Tensor Core GPU datasheet (40GB columns; no FP8: the BF16 rate)"},
        {"B200",
         {"b200"},
         8000,
         75,
         1125,
         2250,
         4500,
         "NVIDIA HGX B200 datasheet (per GPU: the 8-GPU figures / 8, sparsity halved)"},
        {"L40S", {"l40s"}, 864, 91.6, 183, 362, 733, "NVIDIA L40S GPU datasheet"},
        {"MI300X",
         {"mi300x"},
         5300,
         163.4,
         653.7,
         1307.4,
         2614.9,
         "AMD Instinct MI300X accelerator data sheet"},
    };
}

}  // namespace

double GpuSpec::flopsPerSecond(Peak p) const {
    switch (p) {
        case Peak::Vector:
        case Peak::Fp32Gemm:
            return fp32Tflops * 1e12;
        case Peak::Tf32:
            return tf32Tflops * 1e12;
        case Peak::Bf16:
            return bf16Tflops * 1e12;
        case Peak::Fp8:
            return fp8Tflops * 1e12;
    }
    return fp32Tflops * 1e12;
}

const std::vector<GpuSpec>& gpuTable() {
    static const std::vector<GpuSpec> kTable = buildTable();
    return kTable;
}

const GpuSpec* gpuForDevice(std::string_view deviceName) {
    const std::string n = lower(deviceName);
    if (n.empty())
        return nullptr;
    for (const GpuSpec& g : gpuTable()) {
        for (const std::string& m : g.match) {
            if (n.find(m) != std::string::npos)
                return &g;
        }
    }
    return nullptr;
}

const GpuSpec* gpuByName(std::string_view name) {
    const std::string n = lower(name);
    for (const GpuSpec& g : gpuTable()) {
        if (lower(g.name) == n)
            return &g;
    }
    // A unique prefix ("H200", "MI300"); an ambiguous one ("H100") names no row.
    const GpuSpec* prefixed = nullptr;
    for (const GpuSpec& g : gpuTable()) {
        if (!n.empty() && lower(g.name).find(n) == 0) {
            if (prefixed)
                return nullptr;
            prefixed = &g;
        }
    }
    return prefixed ? prefixed : gpuForDevice(name);
}

std::optional<GpuSpec> measuredGpu(std::string_view deviceName, double copyBandwidthGBs) {
    const GpuSpec* row = gpuForDevice(deviceName);
    if (!row || !(copyBandwidthGBs > 0))
        return std::nullopt;
    GpuSpec g = *row;
    char measured[160];
    std::snprintf(measured, sizeof measured, "%.0f GB/s against the datasheet's %.0f",
                  copyBandwidthGBs, row->dramGBs);
    g.name = row->name + ", measured";
    g.dramGBs = copyBandwidthGBs;
    g.source = "DRAM: the device-to-device copy measured on this " + std::string(deviceName) +
               " (reach-verify --device-info --bandwidth), " + measured +
               "; FLOP/s: " + row->source;
    return g;
}

}  // namespace reach
