#pragma once

#include <string>
#include <vector>

#include "core/verify/verification.h"

namespace reach {

// Compiles a candidate .cu into a shared object with nvcc and caches it by (source hash, arch,
// nvcc version): a re-verify of an unchanged candidate skips nvcc. Needs no CUDA runtime, only
// an nvcc on the PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin.
class CandidateCompiler {
public:
    struct Options {
        std::string arch = "sm_90";  // the device's sm_XY
        std::string includeDir;      // holds reach/candidate.h
        std::string cacheDir;        // default ~/.cache/reach/candidates
        double timeoutSeconds = 180;
        std::vector<std::string> extraFlags;
    };

    explicit CandidateCompiler(Options o);

    // status "ok" or "cached" (sharedObject set), or "error" with nvcc's log.
    CompileInfo compile(const std::string& sourcePath) const;

    const std::string& nvcc() const { return m_nvcc; }
    // "13.0.88" style, "" when nvcc is missing.
    const std::string& nvccVersion() const { return m_nvccVersion; }
    static std::string findNvcc();
    static std::string defaultCacheDir();

private:
    Options m_opt;
    std::string m_nvcc;
    std::string m_nvccVersion;
};

}  // namespace reach
