#pragma once

#include <string>
#include <vector>

namespace reach {

// Which files a command may write. A command never writes a file it read or was given (the same
// file through any name, link or relative path: compared by device and inode where it exists),
// and a file the user did not name (a figure's F.csv and F.json, a run's plan.json) never
// replaces an existing file unless that file is one Reach wrote for the same output or the user
// said --force. Issue 37: `figure breakdown X.json --out X.pdf` wrote its provenance over the
// trace X.json and its data over X.csv without a word.
class OutputGuard {
public:
    // Every path the command reads, a folder with the files in it (up to kMaxFolderFiles, the
    // most any of Reach's readers takes from a folder); an empty one is skipped.
    void addInput(const std::string& path);
    void addInputs(const std::vector<std::string>& paths);

    // Throws InputError(path, "", ...) when `path` is one of the inputs. A named output (the
    // user's --out) may replace an existing file that is no input.
    void checkNamed(const std::string& path) const;
    // As checkNamed, and an existing file is replaced only when `ours` says Reach wrote it for
    // this output, or with `force`.
    void checkSidecar(const std::string& path, bool ours, bool force) const;

    // Whether `a` and `b` are the same file: the same device and inode when both exist, else the
    // same absolute, normalised path.
    static bool sameFile(const std::string& a, const std::string& b);

    static constexpr size_t kMaxFolderFiles = 100000;

private:
    std::vector<std::string> m_inputs;
};

}  // namespace reach
