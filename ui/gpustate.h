#pragma once

#include <QString>

namespace reach {

// What the status bar says about the GPU, found without CUDA (ui/ stays CUDA-free): the NVIDIA
// driver's /proc entries name the devices; "no GPU" is an ordinary answer. Whether the
// verifier can run also needs reach-verify next to the application.
struct GpuState {
    QString device;  // "NVIDIA H200", empty when none
    bool verifierFound = false;
    QString text() const;  // "GPU: NVIDIA H200" / "no GPU"
};

GpuState detectGpu();

}  // namespace reach
