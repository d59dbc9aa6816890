// A Kineto trace through the gzip path (ByteSource's inflate thread, concatenated members). The
// first byte chooses what the rest is: even, the file's bytes as they are (corrupt and truncated
// deflate data); odd, a JSON text that is compressed here (so mutations of the JSON reach the
// scanner through inflate), as one member or, for 3 mod 4, split into two members.
#include <zlib.h>

#include "core/trace/profilereader.h"
#include "tests/fuzz/fuzzsupport.h"

namespace {

std::string gzipMember(std::string_view text) {
    z_stream zs{};
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        std::abort();
    std::string out(deflateBound(&zs, uLong(text.size())) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = uInt(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        std::abort();
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    if (size == 0)
        return 0;
    const std::string_view rest = fuzz::asText(data + 1, size - 1);
    std::string bytes;
    if (data[0] % 2 == 0) {
        bytes.assign(rest);
    } else if (data[0] % 4 == 1) {
        bytes = gzipMember(rest);
    } else {
        const size_t half = rest.size() / 2;
        bytes = gzipMember(rest.substr(0, half)) + gzipMember(rest.substr(half));
    }
    const std::string path = fuzz::writeInput("trace.json.gz", bytes);
    fuzz::acceptingInputErrors([&] { fuzz::useWorkload(readProfile(path)); });
    return 0;
}
