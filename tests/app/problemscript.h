#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

namespace reach::test {

// Runs tests/app/SCRIPT with REACH_TEST_PYTHON over every .py file of dir (the problems extract
// wrote): its output (stdout and stderr) and exit status. For the suites built with those two
// definitions (reach_cli_tests).
inline std::pair<int, std::string> runPythonOverProblems(const std::string& script,
                                                         const std::string& dir) {
    std::string cmd =
        std::string(REACH_TEST_PYTHON) + " " + REACH_SOURCE_DIR + "/tests/app/" + script;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".py")
            cmd += " '" + e.path().string() + "'";
    std::string out;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p)
        return {-1, "popen failed"};
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, p))
        out.append(buf, n);
    const int status = ::pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace reach::test
