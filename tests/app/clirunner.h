#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace reach::test {

// Built with AddressSanitizer (GCC defines __SANITIZE_ADDRESS__): a child's peak resident set then
// measures ASan's shadow memory and quarantine, not Reach's, so memory bounds are not asserted.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

// The result of running the built reach-cli as a separate process.
struct CliResult {
    int status = -1;        // exit status; 128 + signal when it was killed by a signal
    bool crashed = false;   // killed by a signal (a crash is never an acceptable answer)
    std::string out;        // stdout
    std::string err;        // stderr
    bool timedOut = false;  // killed (SIGKILL) after CliOptions::timeoutSeconds
    long maxRssKb = 0;      // the child's peak resident set (getrusage), in KiB

    // stderr split into lines (without the newline characters).
    std::vector<std::string> errLines() const;
};

struct CliOptions {
    double timeoutSeconds = 0;  // 0: wait however long it takes
    // Run as an unprivileged user (nobody) when the tests run as root, so that file permissions
    // mean what they mean for a user (root reads and writes a 0444 file).
    bool unprivileged = false;
    std::vector<std::pair<std::string, std::string>> env;  // set for the child only
    // RLIMIT_FSIZE for the child (0: none), with SIGXFSZ ignored: a write past it fails with
    // EFBIG, as on a full disk, without needing a file system one could fill.
    long fileSizeLimitBytes = 0;
};

// Runs REACH_CLI with args (no shell), capturing stdout and stderr completely.
CliResult runCli(const std::vector<std::string>& args);
CliResult runCli(const std::vector<std::string>& args, const CliOptions& options);
class TempDir;

// A reach-cli started and not yet waited for (concurrent runs, kills at random points). The
// destructor kills and reaps a process nobody waited for.
class CliProcess {
public:
    CliProcess(const std::vector<std::string>& args, const CliOptions& options);
    ~CliProcess();
    CliProcess(CliProcess&& other) noexcept;
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;
    pid_t pid() const { return m_pid; }
    void kill();       // SIGKILL
    CliResult wait();  // once

private:
    std::unique_ptr<TempDir> m_io;
    CliOptions m_options;
    pid_t m_pid = -1;
    bool m_done = false;
    std::chrono::steady_clock::time_point m_start;
};
CliProcess startCli(const std::vector<std::string>& args, const CliOptions& options = {});

// The uid runCli's `unprivileged` runs as (nobody), or -1 when the tests do not run as root.
int unprivilegedUid();

// A fresh temporary directory for one test, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path(const std::string& name) const;
    const std::string& root() const { return m_root; }

private:
    std::string m_root;
};

std::string dataset(const std::string& relative);  // under datasets/

// `reach-cli verify` of a KernelBench-format problem and candidate of
// tests/data/kernelbench-py/ on the CPU worker (5 timed repetitions, JSON), then `more`.
std::vector<std::string> kernelBenchVerifyArgs(const std::string& problem,
                                               const std::string& candidate,
                                               const std::vector<std::string>& more = {});
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);

}  // namespace reach::test
