#include "core/base/outputguard.h"

#include <filesystem>

#include "core/base/inputerror.h"

namespace reach {

namespace fs = std::filesystem;

void OutputGuard::addInput(const std::string& path) {
    if (path.empty())
        return;
    m_inputs.push_back(path);
    // A folder read (reach-verify outputs, a benchmark) is its files: none is an output.
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return;
    size_t n = 0;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end && n < kMaxFolderFiles;
         it.increment(ec), ++n)
        m_inputs.push_back(it->path().string());
}

void OutputGuard::addInputs(const std::vector<std::string>& paths) {
    for (const std::string& p : paths)
        addInput(p);
}

bool OutputGuard::sameFile(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) {
        const bool same = fs::equivalent(a, b, ec);
        return !ec && same;
    }
    const fs::path pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
    const fs::path pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return pa.lexically_normal() == pb.lexically_normal();
}

void OutputGuard::checkNamed(const std::string& path) const {
    for (const std::string& in : m_inputs)
        if (sameFile(path, in))
            throw InputError(path, "",
                             "an output that is not one of the command's inputs (" + in +
                                 " is read by this command; Reach never writes over its input)");
}

void OutputGuard::checkSidecar(const std::string& path, bool ours, bool force) const {
    checkNamed(path);
    std::error_code ec;
    if (!force && !ours && fs::symlink_status(path, ec).type() != fs::file_type::not_found)
        throw InputError(path, "",
                         "a new file: it exists and Reach did not write it for this output "
                         "(choose another name, or --force to replace it)");
}

}  // namespace reach
