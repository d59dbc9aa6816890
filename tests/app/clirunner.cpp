#include "clirunner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace fs = std::filesystem;

namespace reach::test {

std::vector<std::string> CliResult::errLines() const {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < err.size()) {
        size_t nl = err.find('\n', start);
        if (nl == std::string::npos)
            nl = err.size();
        lines.push_back(err.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string dataset(const std::string& relative) {
    return std::string(REACH_DATASETS) + "/" + relative;
}

TempDir::TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_root = (fs::temp_directory_path() /
              ("reach_cli_" + std::to_string(getpid()) + "_" +
               (info ? std::string(info->name()) : "x") + "_" + std::to_string(counter++)))
                 .string();
    fs::remove_all(m_root);
    fs::create_directories(m_root);
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(m_root, ec);
}

std::string TempDir::path(const std::string& name) const {
    return m_root + "/" + name;
}

CliResult runCli(const std::vector<std::string>& args) {
    // Output goes to files rather than pipes so a large --json document can never block the
    // child while the parent waits.
    TempDir io;
    const std::string outPath = io.path("stdout");
    const std::string errPath = io.path("stderr");
    std::vector<std::string> argvStore;
    argvStore.push_back(REACH_CLI);
    argvStore.insert(argvStore.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argvStore)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error("fork failed");
    if (pid == 0) {
        int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit(127);
        dup2(out, 1);
        dup2(err, 2);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0) {
    }
    CliResult r;
    if (WIFEXITED(wstatus)) {
        r.status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        r.status = 128 + WTERMSIG(wstatus);
        r.crashed = true;
    }
    r.out = readFile(outPath);
    r.err = readFile(errPath);
    return r;
}

}  // namespace reach::test
