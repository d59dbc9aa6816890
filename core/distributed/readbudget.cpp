#include "core/distributed/readbudget.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <zlib.h>

namespace reach {

namespace {

constexpr uint64_t kFixedBytes = 16ull << 20;  // buffers, names, the rank's own result
constexpr double kBytesPerJsonByte = 0.25;  // the larger of the two traces measured (readbudget.h)

// The uncompressed size of a gzip file, or 0 when it is not one: its trailer's ISIZE (the size
// modulo 4 GiB) plus the multiple of 4 GiB that brings it nearest to what the ratio of its first
// 256 KiB says (a trace's events compress alike from start to end), or that guess where the two
// disagree. Inflated here with zlib, not through ByteSource: the ratio needs the exact bytes
// consumed, which a reader that inflates ahead does not say.
uint64_t gzipJsonBytes(const std::string& file, uint64_t size) {
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (!f)
        return 0;
    std::vector<unsigned char> head(std::min<uint64_t>(size, 256 << 10));
    unsigned char tail[4] = {0, 0, 0, 0};
    const bool gz = size >= 18 && std::fread(head.data(), 1, head.size(), f) == head.size() &&
                    head[0] == 0x1f && head[1] == 0x8b && std::fseek(f, -4, SEEK_END) == 0 &&
                    std::fread(tail, 1, 4, f) == 4;
    std::fclose(f);
    if (!gz)
        return 0;
    const uint64_t isize = uint64_t(tail[0]) | uint64_t(tail[1]) << 8 | uint64_t(tail[2]) << 16 |
                           uint64_t(tail[3]) << 24;
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return isize;
    std::vector<unsigned char> out(1 << 20);
    z.next_in = head.data();
    z.avail_in = uInt(head.size());
    uint64_t produced = 0;
    int rc = Z_OK;
    while (rc == Z_OK && z.avail_in > 0 && produced < (64ull << 20)) {
        z.next_out = out.data();
        z.avail_out = uInt(out.size());
        rc = inflate(&z, Z_NO_FLUSH);
        produced += out.size() - z.avail_out;
    }
    const uint64_t consumed = head.size() - z.avail_in;
    inflateEnd(&z);
    if (rc == Z_STREAM_END && consumed + 32 >= size)
        return isize;  // one member, read whole: the trailer is the size
    if (consumed == 0 || produced == 0)
        return isize;  // nothing to go by (the reading will say what is wrong with the file)
    const double guess = double(size) * double(produced) / double(consumed);
    uint64_t raw = isize;
    while (double(raw + (1ull << 32)) - guess < guess - double(raw))
        raw += 1ull << 32;
    // ISIZE is the last member's alone: a file of several members (gzip -c a b) has a trailer
    // that says little of the whole, and then the ratio is what there is.
    return double(raw) > guess / 2 && double(raw) < guess * 2 ? raw : uint64_t(guess);
}

}  // namespace

uint64_t rankReadingBytes(const std::string& file) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(file, ec);
    if (ec)
        return kFixedBytes;
    const uint64_t gz = gzipJsonBytes(file, size);
    return kFixedBytes + uint64_t(kBytesPerJsonByte * double(gz ? gz : size));
}

void ReadBudget::acquire(uint64_t bytes) {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock,
                   [&] { return m_readers == 0 || m_budget == 0 || m_booked + bytes <= m_budget; });
    m_booked += bytes;
    ++m_readers;
}

void ReadBudget::release(uint64_t bytes) {
    {
        std::lock_guard lock(m_mutex);
        m_booked -= std::min(m_booked, bytes);
        --m_readers;
    }
    m_changed.notify_all();
}

int ReadBudget::inFlight() const {
    std::lock_guard lock(m_mutex);
    return m_readers;
}

}  // namespace reach
