#pragma once

#include <string>
#include <vector>

namespace reach::test {

// The result of running the built reach-cli as a separate process.
struct CliResult {
    int status = -1;       // exit status; 128 + signal when it was killed by a signal
    bool crashed = false;  // killed by a signal (a crash is never an acceptable answer)
    std::string out;       // stdout
    std::string err;       // stderr

    // stderr split into lines (without the newline characters).
    std::vector<std::string> errLines() const;
};

// Runs REACH_CLI with args (no shell), capturing stdout and stderr completely.
CliResult runCli(const std::vector<std::string>& args);

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
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);

}  // namespace reach::test
