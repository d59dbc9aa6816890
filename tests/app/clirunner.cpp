#include "clirunner.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

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

std::vector<std::string> kernelBenchVerifyArgs(const std::string& problem,
                                               const std::string& candidate,
                                               const std::vector<std::string>& more) {
    const std::string dir = std::string(REACH_TEST_DATA) + "/kernelbench-py/";
    std::vector<std::string> a = {"verify",
                                  "--problem",
                                  dir + "problems/" + problem,
                                  "--candidate",
                                  dir + "candidates/" + candidate,
                                  "--worker-device",
                                  "cpu",
                                  "--reps",
                                  "5",
                                  "--json"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
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

int unprivilegedUid() {
    if (geteuid() != 0)
        return -1;
    const passwd* pw = getpwnam("nobody");
    return pw ? static_cast<int>(pw->pw_uid) : 65534;
}

CliResult runCli(const std::vector<std::string>& args) {
    return runCli(args, CliOptions{});
}

CliResult runCli(const std::vector<std::string>& args, const CliOptions& options) {
    CliProcess p = startCli(args, options);
    return p.wait();
}

CliProcess::CliProcess(const std::vector<std::string>& args, const CliOptions& options)
    : m_io(std::make_unique<TempDir>()), m_options(options) {
    // Output goes to files rather than pipes so a large --json document can never block the
    // child while the parent waits.
    const std::string outPath = m_io->path("stdout");
    const std::string errPath = m_io->path("stderr");
    std::vector<std::string> argvStore;
    // REACH_TEST_CLI runs the same tests against another build (e.g. the one before a fix).
    const char* other = std::getenv("REACH_TEST_CLI");
    argvStore.push_back(other && *other ? other : REACH_CLI);
    argvStore.insert(argvStore.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argvStore)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const int uid = options.unprivileged ? unprivilegedUid() : -1;

    m_pid = fork();
    if (m_pid < 0)
        throw std::runtime_error("fork failed");
    if (m_pid == 0) {
        int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit(127);
        dup2(out, 1);
        dup2(err, 2);
        if (uid >= 0) {
            if (setgroups(0, nullptr) != 0 || setgid(static_cast<gid_t>(uid)) != 0 ||
                setuid(static_cast<uid_t>(uid)) != 0)
                _exit(126);
        }
        for (const auto& [name, value] : options.env)
            ::setenv(name.c_str(), value.c_str(), 1);
        if (options.fileSizeLimitBytes > 0) {
            ::signal(SIGXFSZ, SIG_IGN);  // stays ignored across exec
            const rlimit limit{rlim_t(options.fileSizeLimitBytes),
                               rlim_t(options.fileSizeLimitBytes)};
            if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
                _exit(125);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    m_start = std::chrono::steady_clock::now();
}

CliProcess::CliProcess(CliProcess&& other) noexcept
    : m_io(std::move(other.m_io)),
      m_options(other.m_options),
      m_pid(std::exchange(other.m_pid, -1)),
      m_done(other.m_done),
      m_start(other.m_start) {}

CliProcess::~CliProcess() {
    if (m_pid > 0 && !m_done) {
        ::kill(m_pid, SIGKILL);
        int wstatus = 0;
        waitpid(m_pid, &wstatus, 0);
    }
}

void CliProcess::kill() {
    if (m_pid > 0 && !m_done)
        ::kill(m_pid, SIGKILL);
}

CliResult CliProcess::wait() {
    int wstatus = 0;
    rusage usage{};
    CliResult r;
    for (;;) {
        const pid_t got =
            wait4(m_pid, &wstatus, m_options.timeoutSeconds > 0 ? WNOHANG : 0, &usage);
        if (got == m_pid)
            break;
        if (got < 0 && errno != EINTR)
            throw std::runtime_error("wait4 failed");
        if (got == 0) {
            const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - m_start;
            if (!r.timedOut && waited.count() > m_options.timeoutSeconds) {
                r.timedOut = true;
                ::kill(m_pid, SIGKILL);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    m_done = true;
    r.maxRssKb = usage.ru_maxrss;
    if (WIFEXITED(wstatus)) {
        r.status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        r.status = 128 + WTERMSIG(wstatus);
        r.crashed = true;
    }
    r.out = readFile(m_io->path("stdout"));
    r.err = readFile(m_io->path("stderr"));
    return r;
}

CliProcess startCli(const std::vector<std::string>& args, const CliOptions& options) {
    return CliProcess(args, options);
}

}  // namespace reach::test
