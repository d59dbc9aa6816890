#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/headroom/work.h"

namespace reach {

// One GPU's roofline: peak DRAM bandwidth and dense (no sparsity) peak FLOP/s per math type,
// from the vendor's datasheet named in `source` (docs/headroom.md lists them).
struct GpuSpec {
    std::string name;                // "H200 SXM 141GB"
    std::vector<std::string> match;  // lower-case substrings of deviceProperties names
    double dramGBs = 0;              // GB/s (1e9 bytes per second)
    double fp32Tflops = 0;           // vector FP32
    double tf32Tflops = 0;           // tensor cores, dense
    double bf16Tflops = 0;           // BF16/FP16 tensor cores, dense
    double fp8Tflops = 0;            // FP8 tensor cores, dense (no FP8: the BF16 rate)
    std::string source;

    double bytesPerSecond() const { return dramGBs * 1e9; }
    double flopsPerSecond(Peak p) const;  // Fp32Gemm is the FP32 vector rate
};

// The built-in table (A100 40/80 GB, H100 SXM/PCIe, H200, B200, L40S, MI300X).
const std::vector<GpuSpec>& gpuTable();

// The row a trace's device name (deviceProperties "name", e.g. "NVIDIA H100 80GB HBM3") picks,
// most specific first; nullptr when none fits (the caller says so and asks for --gpu).
const GpuSpec* gpuForDevice(std::string_view deviceName);

// A row by the user's --gpu text: its table name or any device name it matches,
// case-insensitively, or a unique prefix of a table name ("H200", "MI300X", "H100 SXM");
// nullptr when none or ambiguous ("H100").
const GpuSpec* gpuByName(std::string_view name);

// The local GPU's row: the table row its device name picks, with the DRAM ceiling replaced by
// the device-to-device copy bandwidth measured on it (`reach-verify --device-info --bandwidth`).
// A measured copy is what kernels can actually reach (4156 GB/s on the H200, 87 % of the
// datasheet's 4800), so fractions of speed of light against this row are higher and headroom
// smaller: the practical bound beside the datasheet's. The FLOP/s peaks stay the datasheet's
// (no quick measurement reaches them either). nullopt when the name picks no row.
std::optional<GpuSpec> measuredGpu(std::string_view deviceName, double copyBandwidthGBs);

}  // namespace reach
