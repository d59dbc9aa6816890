#include "gpu/candidatecompiler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/base/cachedir.h"
#include "core/base/inputerror.h"
#include "core/base/sha256.h"
#include "core/verify/childprocess.h"

namespace reach {

namespace fs = std::filesystem;

namespace {
std::string readFile(const std::string& path, bool* ok) {
    std::ifstream in(path, std::ios::binary);
    *ok = bool(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
std::string quoteArgs(const std::vector<std::string>& a) {
    std::string s;
    for (const auto& x : a)
        s += (s.empty() ? "" : " ") + x;
    return s;
}
}  // namespace

std::string CandidateCompiler::findNvcc() {
    std::vector<std::string> c;
    if (const char* h = std::getenv("CUDA_HOME"))
        c.push_back(std::string(h) + "/bin/nvcc");
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty())
                c.push_back(dir + "/nvcc");
    }
    c.push_back("/usr/local/cuda/bin/nvcc");
    for (const auto& p : c)
        if (access(p.c_str(), X_OK) == 0)
            return p;
    return "";
}

std::string CandidateCompiler::defaultCacheDir() {
    return reach::defaultCacheDir("candidates");  // private: 0700, owned by the user
}

CandidateCompiler::CandidateCompiler(Options o) : m_opt(std::move(o)) {
    if (m_opt.cacheDir.empty())
        m_opt.cacheDir = defaultCacheDir();
    m_nvcc = findNvcc();
    if (!m_nvcc.empty()) {
        ChildResult r = runChild({m_nvcc, "--version"}, 30);
        std::smatch m;
        if (std::regex_search(r.out, m, std::regex(R"(V(\d+\.\d+\.\d+))")))
            m_nvccVersion = m[1];
    }
}

CompileInfo CandidateCompiler::compile(const std::string& sourcePath) const {
    CompileInfo info;
    bool ok = false;
    std::string src = readFile(sourcePath, &ok);
    if (!ok) {
        info.status = "error";
        info.log = sourcePath + ": cannot read the candidate source";
        return info;
    }
    if (m_nvcc.empty()) {
        info.status = "error";
        info.log = "nvcc not found (looked in $CUDA_HOME/bin, $PATH, /usr/local/cuda/bin)";
        return info;
    }
    // The header is part of what the source means, so it is part of the key.
    Sha256 h;
    h.update(src);
    std::error_code dirEc;
    std::vector<std::string> headers;
    for (const auto& e : fs::directory_iterator(m_opt.includeDir + "/reach", dirEc))
        headers.push_back(e.path().string());
    std::sort(headers.begin(), headers.end());
    for (const auto& hp : headers) {
        bool hok = false;
        h.update(hp.substr(hp.rfind('/')));
        h.update(readFile(hp, &hok));
    }
    for (const auto& f : m_opt.extraFlags)
        h.update(f);
    info.sourceHash = Sha256::hex(src);
    std::string key = h.hexDigest().substr(0, 32) + "-" + m_opt.arch + "-nvcc" + m_nvccVersion;
    std::error_code ec;
    try {
        requirePrivateDir(m_opt.cacheDir);
    } catch (const InputError& e) {
        info.status = "error";
        info.log = e.what();
        return info;
    }
    std::string so = m_opt.cacheDir + "/" + key + ".so";
    std::vector<std::string> argv = {m_nvcc, "-O3", "-std=c++17", "-arch=" + m_opt.arch, "-shared",
                                     "-Xcompiler", "-fPIC",
                                     // One CUDA runtime shared with the verifier process.
                                     "-cudart", "shared", "-I", m_opt.includeDir};
    for (const auto& f : m_opt.extraFlags)
        argv.push_back(f);
    std::string tmp = so + ".tmp" + std::to_string(getpid());
    argv.insert(argv.end(), {"-o", tmp, sourcePath});
    info.command = quoteArgs(argv);
    // A cached object is used only when its bytes are the ones Reach wrote (their SHA-256 is
    // kept beside it at publish): a damaged or replaced object is compiled again.
    if (fs::exists(so, ec)) {
        bool sumOk = false;
        const std::string recorded = readFile(so + ".sha256", &sumOk);
        std::string actual;
        try {
            actual = Sha256::hexOfFile(so);
        } catch (const InputError&) {
        }
        if (sumOk && !actual.empty() && recorded.rfind(actual, 0) == 0) {
            info.status = "cached";
            info.sharedObject = so;
            return info;
        }
        fs::remove(so, ec);
    }
    auto t0 = std::chrono::steady_clock::now();
    ChildResult r = runChild(argv, m_opt.timeoutSeconds);
    info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.log = r.err + r.out;
    if (!r.started || r.timedOut || r.exitCode != 0) {
        info.status = "error";
        if (r.timedOut)
            info.log += "\nnvcc killed after the compile timeout";
        if (!r.error.empty())
            info.log += "\n" + r.error;
        fs::remove(tmp, ec);
        return info;
    }
    // Atomic publish: a concurrent verifier never loads a half-written object. The checksum goes
    // first, so an object is never visible without it.
    try {
        const std::string sum = Sha256::hexOfFile(tmp) + "\n";
        const std::string sumTmp = so + ".sha256.tmp" + std::to_string(getpid());
        {
            std::ofstream out(sumTmp, std::ios::binary | std::ios::trunc);
            out << sum;
        }
        fs::rename(sumTmp, so + ".sha256", ec);
    } catch (const InputError&) {
        ec = std::make_error_code(std::errc::io_error);
    }
    if (!ec)
        fs::rename(tmp, so, ec);
    if (ec) {
        info.status = "error";
        info.log += "\ncannot move the object into the cache: " + ec.message();
        return info;
    }
    info.status = "ok";
    info.sharedObject = so;
    return info;
}

}  // namespace reach
