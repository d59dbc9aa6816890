#include "core/base/fileuri.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace reach {

std::string sqliteFileUri(const std::string& path, const std::string& query) {
    std::error_code ec;
    std::string abs = std::filesystem::absolute(path, ec).string();
    if (ec)
        abs = path;
    std::string uri = "file:";
    for (unsigned char c : abs) {
        if (std::isalnum(c) || (c != 0 && std::strchr("/-._~", c))) {
            uri += char(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            uri += buf;
        }
    }
    return query.empty() ? uri : uri + "?" + query;
}

}  // namespace reach
