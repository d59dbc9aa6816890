#include "core/base/wholefile.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/base/inputerror.h"

namespace reach {

void writeWholeFile(const std::string& path, const std::string& text, const std::string& expected) {
    namespace fs = std::filesystem;
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw InputError(path, "", expected);
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw InputError(path, "", expected + " (" + ec.message() + ")");
    }
}

}  // namespace reach
