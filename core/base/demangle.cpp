#include "core/base/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace reach {

bool looksMangled(std::string_view name) {
    return name.size() > 2 && name[0] == '_' && name[1] == 'Z';
}

std::string demangle(std::string_view name) {
    if (!looksMangled(name))
        return std::string(name);
    std::string z(name);  // __cxa_demangle needs a NUL-terminated string
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(
        abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status), std::free);
    if (status != 0 || !out)
        return z;
    return std::string(out.get());
}

}  // namespace reach
