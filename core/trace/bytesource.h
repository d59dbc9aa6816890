#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace reach {

// Streams the bytes of a file, inflating gzip (detected by the magic 1f 8b, never the name) on a
// second thread that fills a small bounded pool of chunks: reading and inflating overlap with
// parsing, and memory stays a few chunks whatever the file size. Hashes the raw file bytes
// (SHA-256) on the way. Errors (truncated or corrupt gzip, I/O) surface as InputError from next().
class ByteSource {
public:
    static constexpr size_t kChunkSize = 1 << 20;
    static constexpr size_t kChunkCount = 4;

    // Opens the file; throws InputError when it is missing, a directory or unreadable.
    explicit ByteSource(std::string path, std::stop_token stop = {});
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    // The next chunk of (uncompressed) bytes, valid until the next call; empty at the end.
    std::string_view next();

    const std::string& path() const { return m_path; }
    bool gzip() const { return m_gzip; }
    uint64_t fileSize() const { return m_fileSize; }
    // Raw file bytes consumed so far by the producer (for progress).
    uint64_t fileBytesRead() const;
    // SHA-256 of the whole file, hex; valid once next() has returned the end.
    const std::string& sha256() const { return m_sha256; }

    // First bytes of a file (for format detection); empty when unreadable.
    static std::string peek(const std::string& path, size_t n);

private:
    struct Chunk {
        std::unique_ptr<char[]> data;
        size_t size = 0;
    };

    void produce(std::stop_token stop);
    void producePlain(std::stop_token stop);
    void produceGzip(std::stop_token stop);
    // Producer side: a free chunk to fill (nullptr when the consumer went away).
    Chunk* acquire(std::stop_token stop);
    void publish(Chunk* c);
    // A full chunk goes to the consumer and c becomes a fresh one; false when the consumer went
    // away (c is then null). A chunk with room left stays.
    bool rotateIfFull(Chunk*& c, std::stop_token stop);
    // The end of the input: the last chunk goes to the consumer if it holds anything, and the
    // hash of the bytes read becomes the file's.
    void finish(Chunk* c, std::string sha256);
    size_t readFile(char* buf, size_t n);

    std::string m_path;
    int m_fd = -1;
    bool m_gzip = false;
    uint64_t m_fileSize = 0;
    std::string m_sha256;

    std::vector<Chunk> m_chunks;
    mutable std::mutex m_mutex;
    std::condition_variable_any m_cv;
    std::vector<Chunk*> m_free;
    std::vector<Chunk*> m_ready;  // FIFO (small)
    Chunk* m_current = nullptr;
    bool m_done = false;
    std::exception_ptr m_error;
    uint64_t m_fileRead = 0;
    std::string m_producerHash;
    std::stop_token m_stop;
    std::jthread m_thread;  // last: starts after every member above exists
};

}  // namespace reach
