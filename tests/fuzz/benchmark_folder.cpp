// A benchmark folder (reach-cli extract's benchmark.json beside its problems), as every reader
// takes it: project --benchmark, integrate, the GUI's exact projection, and reach-verify learning
// a problem's precision (issue 37). The input is benchmark.json; the folder holds two problems
// of their own bytes, one of them oversized (sparse) and one hard link, which must be refused
// without being read.
#include <filesystem>
#include <fstream>

#include "core/ownbenchmark/benchmarkfolder.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    namespace fs = std::filesystem;
    static const std::string dir = [] {
        const std::string d = fuzz::workDir() + "/bench";
        fs::create_directories(d);
        std::ofstream(d + "/001_relu_00000000.py") << "import torch\n";
        std::ofstream(d + "/002_add_00000000.py") << "import torch  # two\n";
        std::ofstream(d + "/big.py");
        fs::resize_file(d + "/big.py", uintmax_t(1) << 30);
        std::error_code ec;
        fs::create_hard_link(d + "/002_add_00000000.py", d + "/linked.py", ec);
        return d;
    }();
    std::ofstream(dir + "/benchmark.json", std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), std::streamsize(size));
    fuzz::acceptingInputErrors([&] {
        const BenchmarkFolder b = readBenchmarkFolder(dir);
        for (const BenchmarkProblem& p : b.problems)
            (void)escapeControls(p.file + p.op + p.signature.dump());
    });
    fuzz::acceptingInputErrors([&] { (void)recordedCallPrecision(dir + "/001_relu_00000000.py"); });
    return 0;
}
