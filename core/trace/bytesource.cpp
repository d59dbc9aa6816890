#include "core/trace/bytesource.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#ifdef REACH_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/base/sha256.h"

namespace reach {

namespace {

constexpr size_t kReadSize = 256 << 10;  // compressed bytes per read()

std::string errnoText() {
    return std::strerror(errno);
}

}  // namespace

ByteSource::ByteSource(std::string path, std::stop_token stop)
    : m_path(std::move(path)), m_stop(stop) {
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0) {
        throw InputError(m_path, "", "cannot open: " + errnoText());
    }
    if (S_ISDIR(st.st_mode))
        throw InputError(m_path, "", "is a directory, expected a file");
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        throw InputError(m_path, "", "cannot open: " + errnoText());
    m_fileSize = uint64_t(st.st_size);
    if (m_fileSize == 0) {
        ::close(m_fd);
        throw InputError(m_path, "byte 0", "the file is empty, expected a profile");
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    unsigned char magic[2] = {0, 0};
    if (::pread(m_fd, magic, 2, 0) == 2)
        m_gzip = magic[0] == 0x1f && magic[1] == 0x8b;

    m_chunks.resize(kChunkCount);
    for (Chunk& c : m_chunks) {
        c.data = std::make_unique<char[]>(kChunkSize);
        m_free.push_back(&c);
    }
    m_thread = std::jthread([this](std::stop_token st) { produce(st); });
}

ByteSource::~ByteSource() {
    m_thread.request_stop();
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    if (m_fd >= 0)
        ::close(m_fd);
}

uint64_t ByteSource::fileBytesRead() const {
    std::lock_guard lock(m_mutex);
    return m_fileRead;
}

std::string ByteSource::peek(const std::string& path, size_t n) {
    std::string out(n, '\0');
    // O_NONBLOCK: a FIFO named as a file would block the open until something wrote to it; only
    // a regular file is read (the reader then says what the rest is, in one line).
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return {};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return {};
    }
    ssize_t got = ::pread(fd, out.data(), n, 0);
    ::close(fd);
    out.resize(got > 0 ? size_t(got) : 0);
    return out;
}

std::string_view ByteSource::next() {
    std::unique_lock lock(m_mutex);
    if (m_current) {
        m_free.push_back(m_current);
        m_current = nullptr;
        m_cv.notify_all();
    }
    for (;;) {
        if (m_stop.stop_requested())
            throw Cancelled{};
        if (!m_ready.empty()) {
            m_current = m_ready.front();
            m_ready.erase(m_ready.begin());
            return {m_current->data.get(), m_current->size};
        }
        if (m_done) {
            if (m_error)
                std::rethrow_exception(m_error);
            m_sha256 = m_producerHash;
            return {};
        }
        // Wake up now and then to honour the caller's stop token.
        m_cv.wait_for(lock, std::chrono::milliseconds(50));
    }
}

ByteSource::Chunk* ByteSource::acquire(std::stop_token stop) {
    std::unique_lock lock(m_mutex);
    if (!m_cv.wait(lock, stop, [this] { return !m_free.empty(); }))
        return nullptr;
    Chunk* c = m_free.back();
    m_free.pop_back();
    c->size = 0;
    return c;
}

void ByteSource::publish(Chunk* c) {
    std::lock_guard lock(m_mutex);
    m_ready.push_back(c);
    m_cv.notify_all();
}

bool ByteSource::rotateIfFull(Chunk*& c, std::stop_token stop) {
    if (c->size < kChunkSize)
        return true;
    publish(c);
    c = acquire(stop);
    return c != nullptr;
}

void ByteSource::finish(Chunk* c, std::string sha256) {
    std::lock_guard lock(m_mutex);
    if (c->size > 0) {
        m_ready.push_back(c);
        m_cv.notify_all();
    } else {
        m_free.push_back(c);
    }
    m_producerHash = std::move(sha256);
}

size_t ByteSource::readFile(char* buf, size_t n) {
    for (;;) {
        ssize_t got = ::read(m_fd, buf, n);
        if (got >= 0) {
            std::lock_guard lock(m_mutex);
            m_fileRead += uint64_t(got);
            return size_t(got);
        }
        if (errno != EINTR) {
            throw InputError(m_path, "byte " + std::to_string(fileBytesRead()),
                             "read error: " + errnoText());
        }
    }
}

void ByteSource::produce(std::stop_token stop) {
    try {
        if (m_gzip) {
            produceGzip(stop);
        } else {
            producePlain(stop);
        }
    } catch (...) {
        std::lock_guard lock(m_mutex);
        m_error = std::current_exception();
    }
    std::lock_guard lock(m_mutex);
    m_done = true;
    m_cv.notify_all();
}

void ByteSource::producePlain(std::stop_token stop) {
    Sha256 hash;
    for (;;) {
        Chunk* c = acquire(stop);
        if (!c)
            return;
        while (c->size < kChunkSize) {
            size_t got = readFile(c->data.get() + c->size, kChunkSize - c->size);
            if (got == 0)
                break;
            hash.update(c->data.get() + c->size, got);
            c->size += got;
        }
        if (c->size == 0) {
            std::lock_guard lock(m_mutex);
            m_free.push_back(c);
            break;
        }
        bool last = c->size < kChunkSize;
        publish(c);
        if (last)
            break;
    }
    std::lock_guard lock(m_mutex);
    m_producerHash = hash.hexDigest();
}

#ifdef REACH_HAVE_ISAL

// ISA-L's inflate is several times faster than zlib's: with it, inflating no longer bounds the
// reader (zlib inflates ~350 MB/s, parsing runs faster than that).
void ByteSource::produceGzip(std::stop_token stop) {
    Sha256 hash;
    auto in = std::make_unique<uint8_t[]>(kReadSize);
    auto state = std::make_unique<inflate_state>();
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_GZIP;
    bool eof = false;
    bool memberDone = false;
    uint64_t consumedBefore = 0;  // compressed bytes handed to inflate before the current buffer
    auto place = [&] {
        return "byte " + std::to_string(consumedBefore + (state->next_in - in.get()));
    };
    Chunk* c = acquire(stop);
    if (!c)
        return;
    for (;;) {
        if (state->avail_in == 0 && !eof) {
            consumedBefore += state->next_in ? uint64_t(state->next_in - in.get()) : 0;
            size_t got = readFile(reinterpret_cast<char*>(in.get()), kReadSize);
            hash.update(in.get(), got);
            state->next_in = in.get();
            state->avail_in = uint32_t(got);
            eof = got == 0;
        }
        if (memberDone) {
            // Concatenated gzip members are one stream (gzip -c a b); trailing zeros are padding.
            while (state->avail_in > 0 && *state->next_in == 0) {
                ++state->next_in;
                --state->avail_in;
            }
            if (state->avail_in == 0) {
                if (eof)
                    break;
                continue;
            }
            isal_inflate_reset(state.get());
            state->crc_flag = ISAL_GZIP;
            memberDone = false;
        }
        size_t before = c->size;
        state->next_out = reinterpret_cast<uint8_t*>(c->data.get() + c->size);
        state->avail_out = uint32_t(kChunkSize - c->size);
        int ret = isal_inflate(state.get());
        if (ret < 0) {
            throw InputError(m_path, place(),
                             "corrupt gzip data (ISA-L inflate error " + std::to_string(ret) + ")");
        }
        c->size = kChunkSize - state->avail_out;
        if (state->block_state == ISAL_BLOCK_FINISH) {
            memberDone = true;
        } else if (eof && state->avail_in == 0 && c->size == before) {
            // Inflate holds no more output and the file has no more input.
            throw InputError(m_path, place(),
                             "the gzip stream ends early (truncated file?), expected more data");
        }
        if (!rotateIfFull(c, stop))
            return;
    }
    finish(c, hash.hexDigest());
}

#else

void ByteSource::produceGzip(std::stop_token stop) {
    Sha256 hash;
    auto in = std::make_unique<unsigned char[]>(kReadSize);
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        throw InputError(m_path, "", "zlib init failed");
    struct End {
        z_stream* z;
        ~End() { inflateEnd(z); }
    } end{&zs};
    bool eof = false;
    bool memberDone = false;
    uint64_t consumedBefore = 0;
    auto place = [&] { return "byte " + std::to_string(consumedBefore + (zs.next_in - in.get())); };
    Chunk* c = acquire(stop);
    if (!c)
        return;
    for (;;) {
        if (zs.avail_in == 0 && !eof) {
            consumedBefore += zs.next_in ? uint64_t(zs.next_in - in.get()) : 0;
            size_t got = readFile(reinterpret_cast<char*>(in.get()), kReadSize);
            hash.update(in.get(), got);
            zs.next_in = in.get();
            zs.avail_in = uInt(got);
            eof = got == 0;
        }
        if (memberDone) {
            while (zs.avail_in > 0 && *zs.next_in == 0) {
                ++zs.next_in;
                --zs.avail_in;
            }
            if (zs.avail_in == 0) {
                if (eof)
                    break;
                continue;
            }
            inflateReset(&zs);
            memberDone = false;
        }
        size_t before = c->size;
        zs.next_out = reinterpret_cast<unsigned char*>(c->data.get() + c->size);
        zs.avail_out = uInt(kChunkSize - c->size);
        int ret = inflate(&zs, Z_NO_FLUSH);
        if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
            throw InputError(m_path, place(),
                             std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "zlib") + ")");
        }
        c->size = kChunkSize - zs.avail_out;
        if (ret == Z_STREAM_END) {
            memberDone = true;
        } else if (eof && zs.avail_in == 0 && c->size == before) {
            throw InputError(m_path, place(),
                             "the gzip stream ends early (truncated file?), expected more data");
        }
        if (!rotateIfFull(c, stop))
            return;
    }
    finish(c, hash.hexDigest());
}

#endif

}  // namespace reach
